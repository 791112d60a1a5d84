import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Emulators, startEmulators } from '../../scripts/local/emulators.js';

// The local stack is for this machine only: every emulator listens on 127.0.0.1, like the API.

let dataDir: string;
let emulators: Emulators;

describe('emulator-loopback', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'netintel-loopback-'));
    emulators = await startEmulators(dataDir);
  });

  afterAll(async () => {
    await emulators?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Whether a TCP connection to host:port is accepted. */
  function accepts(host: string, port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  }

  describe('local emulators', () => {
    test('every emulator socket is bound to 127.0.0.1, not to all interfaces', () => {
      expect(emulators.listening.length).toBeGreaterThanOrEqual(3);
      expect(emulators.listening.map((a) => a.address)).toEqual(emulators.listening.map(() => '127.0.0.1'));
    });

    // Linux routes all of 127.0.0.0/8 to loopback: a socket bound to 0.0.0.0 accepts 127.0.0.2 too,
    // one bound to 127.0.0.1 refuses it. (Elsewhere 127.0.0.2 may not exist, and proves nothing.)
    test.each(['dynamodb', 's3', 'sqs'] as const)(
      'the %s endpoint is not reachable on another address',
      async (name) => {
        const port = Number(new URL(emulators.endpoints[name]).port);
        expect(await accepts('127.0.0.1', port)).toBe(true);
        if (process.platform === 'linux') expect(await accepts('127.0.0.2', port)).toBe(false);
      },
    );
  });
});
