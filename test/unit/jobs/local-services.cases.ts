import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { crashCheckpoint, serveOnAPort } from '../../../scripts/local/local-services.js';
import { snapshotEnv } from '../../support/env.js';

// The local stack's services and port (scripts/local/local-services.ts).

describe('the crash point of the local crash tests', () => {
  test('none set is a no-op; an unknown point is refused with the list of points', () => {
    expect(() => crashCheckpoint(undefined)('after_record')).not.toThrow();
    expect(() => crashCheckpoint('')('after_charge')).not.toThrow();
    expect(() => crashCheckpoint('after_lunch')).toThrow(/NETINTEL_CRASH_AT must be one of after_record, /);
  });

  test('a point set acts at that point only', () => {
    // The other points pass (the kill itself is what test/integration/jobs-crash.test.ts exercises).
    const checkpoint = crashCheckpoint('after_queued');
    for (const point of ['after_record', 'after_charge', 'after_chunks'] as const) {
      expect(() => checkpoint(point)).not.toThrow();
    }
  });
});

describe('the port the local stack serves on', () => {
  // serveOnAPort sets DASHBOARD_URL in this process, as the local stack does in its own.
  let restoreEnv: () => void;
  beforeEach(() => {
    restoreEnv = snapshotEnv();
  });
  afterEach(() => restoreEnv());
  const taken = () => Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });

  test('a free port another process took before the listen is probed again; the services name the port served', async () => {
    const ports: number[] = [];
    const served = await serveOnAPort({ host: '127.0.0.1' }, async (port, services) => {
      ports.push(port);
      if (ports.length === 1) throw taken();
      return { port, dashboardUrl: services.config.DASHBOARD_URL };
    });
    expect(ports).toHaveLength(2);
    expect(served.gateway.dashboardUrl).toBe(`http://127.0.0.1:${ports[1]}/dashboard/`);
    expect(served.services.config.DASHBOARD_URL).toBe(served.gateway.dashboardUrl);
  });

  test('a port the caller chose is not changed, and other failures are not retried', async () => {
    let calls = 0;
    await expect(
      serveOnAPort({ port: 38999 }, async () => {
        calls += 1;
        throw taken();
      }),
    ).rejects.toThrow('EADDRINUSE');
    expect(calls).toBe(1);
    await expect(
      serveOnAPort({}, async () => {
        calls += 1;
        throw new Error('emulator gone');
      }),
    ).rejects.toThrow('emulator gone');
    expect(calls).toBe(2);
  });
});
