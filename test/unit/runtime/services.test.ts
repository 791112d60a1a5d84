import { describe, expect, jest, test } from '@jest/globals';
import { parseConfig } from '../../../functions/lib/runtime/config.js';
import { lambdaEntry } from '../../../functions/lib/runtime/lambda-entry.js';
import { asyncPart, createServices, part } from '../../../functions/lib/runtime/services.js';

// The composition root (docs/architecture.md, "One instance of services"): every store, client and
// loaded dataset is a part of a service instance, built from its configuration on first use and
// kept by that instance only.

const config = parseConfig({});

describe('a service instance', () => {
  test('builds a part on its first use, once, and gives every caller the same value', () => {
    const build = jest.fn((s: { config: unknown }) => ({ built: s.config }));
    const store = part(build);
    const services = createServices(config);
    const first = store(services);
    expect(store(services)).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    expect(first.built).toBe(config);
  });

  test('two instances never share a part: a stack started later in a process has its own stores', () => {
    const store = part(() => ({}));
    const a = createServices(config);
    const b = createServices(parseConfig({ KEY_CACHE_SECONDS: '9' }));
    expect(store(a)).not.toBe(store(b));
    expect(b.config.KEY_CACHE_SECONDS).toBe(9);
    expect(a.config.KEY_CACHE_SECONDS).not.toBe(9);
  });

  test('a part may use other parts of the same instance', () => {
    const client = part(() => ({ id: Math.random() }));
    const store = part((s) => ({ client: client(s) }));
    const services = createServices(config);
    expect(store(services).client).toBe(client(services));
  });

  test('its time is its clock, and checkpoints are a no-op unless given', () => {
    const at = new Date('2026-11-27T10:00:00Z');
    const services = createServices(config, { clock: { now: () => at } });
    expect(services.now()).toBe(at);
    const { now } = services; // passed on as a callback
    expect(now()).toBe(at);
    expect(() => services.checkpoint('after_record')).not.toThrow();
    const seen: string[] = [];
    createServices(config, { checkpoint: (point) => seen.push(point) }).checkpoint('after_record');
    expect(seen).toEqual(['after_record']);
  });
});

describe('an asynchronous part', () => {
  test('is built once for concurrent callers, and a failed build is tried again by the next call', async () => {
    let attempts = 0;
    const load = asyncPart(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('data not readable yet');
      return { attempts };
    });
    const services = createServices(config);
    await expect(load(services)).rejects.toThrow('data not readable yet');
    const [x, y] = await Promise.all([load(services), load(services)]);
    expect(x).toBe(y);
    expect(attempts).toBe(2);
    expect(await load(services)).toBe(x);
  });
});

describe("a handler module's entry", () => {
  test('build(services) gives the handler on those services; each build is its own', async () => {
    const entry = lambdaEntry(
      (services) => async (event: string) => `${event} at ${services.now().toISOString()}`,
    );
    const at = new Date('2026-11-27T10:00:00Z');
    const handler = entry.build(createServices(config, { clock: { now: () => at } }));
    expect(await handler('call')).toBe('call at 2026-11-27T10:00:00.000Z');
  });
});
