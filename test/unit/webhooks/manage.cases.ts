import { describe, expect, jest, test } from '@jest/globals';
import { MAX_ENDPOINTS } from '../../../functions/lib/webhooks/endpoints.js';
import {
  EndpointSetBusyError,
  TooManyEndpointsError,
  WebhookUrlRefusedError,
} from '../../../functions/lib/webhooks/errors.js';
import {
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  rotateEndpointSecret,
} from '../../../functions/lib/webhooks/manage.js';
import { MemoryWebhookStore } from './support/memory-store.js';

// Changes to an account's endpoints through the store (functions/lib/webhooks/manage.ts): a refused
// URL never reaches the store, and concurrent changes of one account's set neither lose one another
// nor pass the limit, as each is a write at the version it read, retried on a lost race.

const LIVE = { allowLoopback: false };
const T0 = new Date('2026-11-28T10:00:00.000Z');
const ACCOUNT = 'acct_manage';

describe('managing webhook endpoints', () => {
  test('a private, metadata or credentialed URL, or http to a public host, is refused before the store is touched', async () => {
    const store = new MemoryWebhookStore();
    for (const url of [
      'https://169.254.169.254/',
      'https://169.254.169.254/latest/meta-data/iam/',
      'https://10.0.0.1/',
      'http://hooks.shop.example/',
      'https://user:pass@hooks.shop.example/',
      'https://user@hooks.shop.example/',
      'https://localhost/',
      'not a url',
    ]) {
      await expect(
        (async () => createEndpoint(store, LIVE, ACCOUNT, { url, events: ['job.completed'] }, T0))(),
      ).rejects.toThrow(WebhookUrlRefusedError);
    }
    expect(store.calls).toEqual([]);

    const e = await createEndpoint(
      store,
      LIVE,
      ACCOUNT,
      { url: 'https://hooks.shop.example/a', events: ['job.failed'] },
      T0,
    );
    store.calls.length = 0;
    await expect(
      (async () => changeEndpoint(store, LIVE, ACCOUNT, e.id, { url: 'https://10.0.0.1/' }, T0))(),
    ).rejects.toThrow(WebhookUrlRefusedError);
    expect(store.calls).toEqual([]);
    expect((await getEndpoint(store, ACCOUNT, e.id)).url).toBe('https://hooks.shop.example/a');
  });

  test('an accepted URL is stored in its parsed form; changes, rotations and deletion go through the set', async () => {
    const store = new MemoryWebhookStore();
    const e = await createEndpoint(
      store,
      LIVE,
      ACCOUNT,
      { url: 'https://Hooks.Shop.Example', events: ['job.failed'] },
      T0,
    );
    expect(e.url).toBe('https://hooks.shop.example/');
    expect((await store.endpointSet(ACCOUNT)).endpoints).toEqual([e]);

    const changed = await changeEndpoint(store, LIVE, ACCOUNT, e.id, { events: ['usage.threshold'] }, T0);
    expect(changed).toMatchObject({ url: 'https://hooks.shop.example/', events: ['usage.threshold'] });
    const rotated = await rotateEndpointSecret(store, ACCOUNT, e.id, 60, T0);
    expect(rotated.secrets.map((s) => s.secret)).toEqual([
      expect.stringMatching(/^whsec_/),
      e.secrets[0]!.secret,
    ]);
    expect(await getEndpoint(store, ACCOUNT, e.id)).toEqual(rotated);
    await deleteEndpoint(store, ACCOUNT, e.id);
    expect(await store.endpointSet(ACCOUNT)).toEqual({ version: 4, endpoints: [] });
  });

  test(`concurrent creations neither pass ${MAX_ENDPOINTS} nor lose one`, async () => {
    const store = new MemoryWebhookStore();
    const create = (i: number) =>
      createEndpoint(store, LIVE, ACCOUNT, { url: `https://h${i}.example/`, events: ['job.completed'] }, T0);

    // 20 at once on an empty set: each round of reads has one winner, the others read again (and
    // give up after a few rounds: EndpointSetBusyError, which a client retries).
    const first = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => create(i)));
    const created = first.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused: unknown[] = [];
    const busy: number[] = [];
    first.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      if (r.reason instanceof EndpointSetBusyError) busy.push(i);
      else refused.push(r.reason);
    });
    let set = await store.endpointSet(ACCOUNT);
    expect(created.length).toBeGreaterThan(0);
    expect(set.endpoints.length).toBeLessThanOrEqual(MAX_ENDPOINTS);
    expect(set.endpoints.map((e) => e.id).sort()).toEqual(created.map((e) => e.id).sort());
    expect(set.version).toBe(created.length);

    // As clients would, each busy caller tries again until its creation is stored or refused.
    const persistent = async (i: number) => {
      for (;;) {
        try {
          return await create(i);
        } catch (error) {
          if (!(error instanceof EndpointSetBusyError)) throw error;
        }
      }
    };
    const again = await Promise.allSettled(busy.map(persistent));
    const more = again.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    refused.push(...again.flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])));
    for (const reason of refused) expect(reason).toBeInstanceOf(TooManyEndpointsError);
    set = await store.endpointSet(ACCOUNT);
    expect(set.endpoints).toHaveLength(MAX_ENDPOINTS);
    expect(created.length + more.length).toBe(MAX_ENDPOINTS);
    expect(refused).toHaveLength(20 - MAX_ENDPOINTS);
    expect(set.endpoints.map((e) => e.id).sort()).toEqual([...created, ...more].map((e) => e.id).sort());
    expect(new Set(set.endpoints.map((e) => e.url)).size).toBe(MAX_ENDPOINTS);
  });

  test(`${MAX_ENDPOINTS} changes of ${MAX_ENDPOINTS} different endpoints at once all land`, async () => {
    const store = new MemoryWebhookStore();
    const endpoints = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++)
      endpoints.push(
        await createEndpoint(
          store,
          LIVE,
          ACCOUNT,
          { url: `https://h${i}.example/`, events: ['job.completed'] },
          T0,
        ),
      );
    // Each change writes the account's one set, so they race although no two touch one endpoint:
    // the lost tries wait and read again instead of giving up (they answered 503 after 8 quick rounds).
    const changed = await Promise.all(
      endpoints.map((e, i) => changeEndpoint(store, LIVE, ACCOUNT, e.id, { description: `n${i}` }, T0)),
    );
    expect(changed.map((e) => e.description)).toEqual(endpoints.map((_, i) => `n${i}`));
    const set = await store.endpointSet(ACCOUNT);
    expect(set.endpoints.map((e) => e.description)).toEqual(endpoints.map((_, i) => `n${i}`));
    expect(set.version).toBe(2 * MAX_ENDPOINTS);
  });

  test('a few concurrent creations are all stored (the lost races are retried)', async () => {
    const store = new MemoryWebhookStore();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createEndpoint(
          store,
          LIVE,
          ACCOUNT,
          { url: `https://h${i}.example/`, events: ['job.completed'] },
          T0,
        ),
      ),
    );
    const set = await store.endpointSet(ACCOUNT);
    expect(set.endpoints.map((e) => e.id).sort()).toEqual(results.map((e) => e.id).sort());
    expect(store.calls.filter((c) => c === 'saveEndpointSet').length).toBeGreaterThan(6);
  });

  test('a store that always loses the race ends in EndpointSetBusyError, having written nothing', async () => {
    const store = new MemoryWebhookStore();
    store.saveEndpointSet = async () => {
      store.calls.push('saveEndpointSet');
      return false;
    };
    // The waits between tries (backoff.ts, about 2.5 s in all) pass on a fake clock.
    jest.useFakeTimers();
    try {
      const refused = expect(
        createEndpoint(
          store,
          LIVE,
          ACCOUNT,
          { url: 'https://hooks.shop.example/', events: ['job.completed'] },
          T0,
        ),
      ).rejects.toThrow(EndpointSetBusyError);
      await jest.runAllTimersAsync();
      await refused;
    } finally {
      jest.useRealTimers();
    }
    const saves = store.calls.filter((c) => c === 'saveEndpointSet').length;
    expect(saves).toBeGreaterThan(1);
    expect(store.calls.filter((c) => c === 'endpointSet').length).toBe(saves);
    expect(store.sets.size).toBe(0);
  });
});
