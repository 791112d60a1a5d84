import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParsedIp } from '../../../../functions/lib/ip/parse-ip.js';
import { parseIp } from '../../../../functions/lib/ip/parse-ip.js';
import {
  type FetchTarget,
  type SourceFetcher,
  SourceUnavailableError,
} from '../../../../functions/lib/refresh/fetch.js';
import { NO_CURRENT_DATA, type RefreshDeps, runRefresh } from '../../../../functions/lib/refresh/refresh.js';
import type { NetworkData } from '../../../../functions/lib/refresh/security-build.js';
import { snapshotFetcher } from '../../../../functions/lib/refresh/snapshot-fetcher.js';
import { networkDataFromSnapshot } from '../../../../layers/build/security-data.js';

// Shared helpers of the security and refresh tests: the fixture snapshot directory
// (test/fixtures/security/snapshots, see its README), the real snapshots when this machine has them,
// and a fetch-port wrapper that changes what one source returns.

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURE_SNAPSHOTS = join(ROOT, 'test/fixtures/security/snapshots');

/** ../shared/data (or SHARED_DATA_DIR) when present: tests on the real snapshots run only then. */
export function sharedDataDir(): string | undefined {
  const dir = process.env.SHARED_DATA_DIR ?? resolve(ROOT, '..', 'shared', 'data');
  return existsSync(dir) ? dir : undefined;
}

export function ip(text: string): ParsedIp {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`test address ${text} does not parse`);
  return parsed;
}

export async function fixtureNetworks(): Promise<NetworkData> {
  const networks = await networkDataFromSnapshot(FIXTURE_SNAPSHOTS);
  if (networks === null) throw new Error('fixture ip-location-db data missing');
  return networks;
}

/** A fetcher answering `overrides[id]` (text, or null for "unavailable") instead of the base. */
export function overridingFetcher(
  base: SourceFetcher,
  overrides: Record<string, string | null>,
): SourceFetcher {
  return {
    mode: base.mode,
    async fetch(target: FetchTarget) {
      if (!(target.id in overrides)) return base.fetch(target);
      const text = overrides[target.id];
      if (text === null || text === undefined)
        throw new SourceUnavailableError(`${target.id}: overridden as unavailable`);
      return { text, fetchedAt: new Date('2026-08-22T00:00:00Z'), origin: `override:${target.id}` };
    },
    async fetchBytes(target: FetchTarget) {
      if (!(target.id in overrides)) return base.fetchBytes(target);
      const { text, ...rest } = await this.fetch(target);
      return { bytes: new TextEncoder().encode(text), ...rest };
    },
  };
}

export async function refreshFixture(overrides: Partial<RefreshDeps> = {}) {
  return runRefresh({
    fetcher: snapshotFetcher(FIXTURE_SNAPSHOTS),
    networks: await fixtureNetworks(),
    current: NO_CURRENT_DATA,
    mx: null,
    now: () => new Date('2026-11-22T06:00:00Z'),
    ...overrides,
  });
}
