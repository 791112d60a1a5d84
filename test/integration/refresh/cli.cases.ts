import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { dataReport } from '../../../functions/lib/data-report.js';
import { loadEmailLists } from '../../../functions/lib/email/lists.js';
import { LISTS_CHECKS_FILE } from '../../../functions/lib/refresh/artifact-paths.js';
import { parseEmailListsManifest } from '../../../functions/lib/refresh/email-build.js';
import { dataInDirectory } from '../../../functions/lib/runtime/data-report.js';
import { loadLayerSecurity } from '../../../functions/lib/runtime/security.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';
import { FIXTURE_SNAPSHOTS, ip, ROOT } from '../../unit/security/support/fixtures.js';

// `npm run data:refresh -- --from <fixture dir> --out <tmp>` end to end: a separate process, the
// fixture snapshots, and artifacts read back with the loaders the functions use.

const run = promisify(execFile);
let out: string;

async function refresh(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return refreshWith({}, ...args);
}

async function refreshWith(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/data-refresh.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('cli', () => {
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), 'netintel-refresh-'));
  });
  afterAll(async () => {
    await rm(out, { recursive: true, force: true });
  });

  describe('npm run data:refresh', () => {
    test('--from a snapshot directory writes artifacts the functions load', async () => {
      const result = await refresh('--from', FIXTURE_SNAPSHOTS, '--out', out);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/version \d{8}T\d{6}Z-[0-9a-f]{12} written/);

      const security = await loadLayerSecurity(out);
      expect(security?.classifier.classify(ip('192.0.2.10')).isTor).toBe(true);
      expect(security?.classifier.classify(ip('2001:db8:4::1')).isThreat).toBe(true);
      expect(security?.classifier.classify(ip('192.0.2.1'))).toEqual({
        isTor: false,
        isVpn: false,
        isDatacenter: false,
        isThreat: false,
        isSanctionedNetwork: false,
      });

      const lists = await loadEmailLists(join(out, 'email'));
      expect([...lists.disposable].sort()).toEqual([
        'burner.test',
        'mailinator.com',
        'rotating1.test',
        'rotating2.test',
        'throwaway.test',
      ]);
      expect(lists.allowlist.has('126.com')).toBe(true);
      expect(lists.free.size).toBeGreaterThan(1_000); // carried from the layer build (npm email-providers)
      const manifest = parseEmailListsManifest(
        await readFile(join(out, 'email/lists-manifest.json'), 'utf8'),
      );
      expect(manifest.counts.disposable).toBe(5);
      expect(manifest.sources.map((s) => s.licence)).toEqual([
        'CC0-1.0',
        'MIT',
        'BSD-3-Clause',
        'CC0-1.0',
        'as its sources',
      ]);
    });

    test('a refresh with an unparseable source is refused, exit code 2, and the current files stay', async () => {
      const before = await readFile(join(out, 'security/ranges.bin'));
      const beforeLists = await readFile(join(out, 'email/disposable.txt'), 'utf8');
      const broken = await mkdtemp(join(tmpdir(), 'netintel-broken-'));
      try {
        await cp(FIXTURE_SNAPSHOTS, broken, { recursive: true });
        await writeFile(join(broken, 'fakefilter/data.json'), '<html>rate limited</html>');
        await writeFile(join(broken, 'x4bnet-vpn-datacenter/vpn/ipv4.txt'), '');
        const result = await refresh('--from', broken, '--out', out);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('refresh REJECTED');
        expect(result.stderr).toContain('fakefilter: SourceFormatError');
        expect(result.stderr).toContain('x4bnet-vpn-ipv4');
        expect(await readFile(join(out, 'security/ranges.bin'))).toEqual(before);
        expect(await readFile(join(out, 'email/disposable.txt'), 'utf8')).toBe(beforeLists);
        // The run is recorded beside the lists (GET /v1/data shows it on the lists in service).
        const run = JSON.parse(await readFile(join(out, LISTS_CHECKS_FILE), 'utf8'));
        expect(run.checks).toEqual([
          expect.objectContaining({
            name: 'lists',
            status: 'rejected',
            note: expect.stringContaining('fakefilter: SourceFormatError'),
          }),
        ]);
        const report = dataReport(await dataInDirectory(out));
        expect(report.datasets.find((d) => d.name === 'email: fakefilter')?.note).toContain(
          `the refresh at ${run.checks[0].checkedAt} was rejected, this copy kept`,
        );
      } finally {
        await rm(broken, { recursive: true, force: true });
      }
    });

    test('with no upstream reachable the refusal says so, and what to do offline; --help says the exit codes', async () => {
      // A mirror on a loopback port nobody listens on: every fetch is refused, as offline.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const before = await readFile(join(out, 'security/ranges.bin'));
      const result = await refreshWith(
        { DATA_UPSTREAM_MIRROR: `http://127.0.0.1:${port}` },
        ...['--upstream', '--only', 'lists', '--mx-domains', '0', '--out', out],
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^\d+ sources could not be reached \(ECONNREFUSED\): is this machine offline\?/m,
      );
      expect(result.stderr).toContain('(--from DIR) or through a mirror (DATA_UPSTREAM_MIRROR)');
      expect(await readFile(join(out, 'security/ranges.bin'))).toEqual(before);
      const help = await refresh('--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Exit codes: 0 done (or nothing changed), 2 a refresh rejected');
      for (const option of [
        '--from DIR',
        '--upstream',
        '--out DIR',
        '--only lists|ip',
        '--mx-domains N',
        '--dns',
        '--force',
      ])
        expect(help.stdout).toContain(`  ${option}`);
    });

    test('the first refresh of a built layer is held to its npm-built lists; --force takes it', async () => {
      // The layer's lists as `npm run build:data` wrote them: tens of thousands of disposable
      // domains and no lists-manifest.json. The fixture snapshots have 5.
      const layer = await mkdtemp(join(tmpdir(), 'netintel-layer-lists-'));
      try {
        await cp(join(DATA_LAYER_DIR, 'email'), join(layer, 'email'), { recursive: true });
        const before = await readFile(join(layer, 'email/disposable.txt'), 'utf8');
        const inService = (await loadEmailLists(join(layer, 'email'))).disposable.size;
        expect(inService).toBeGreaterThan(1_000);
        const refused = await refresh('--from', FIXTURE_SNAPSHOTS, '--out', layer, '--only', 'lists');
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(
          /derived:disposable-union: shrank from \d{4,} to 5 entries \(more than 50% lost\)/,
        );
        expect(await readFile(join(layer, 'email/disposable.txt'), 'utf8')).toBe(before);
        const forced = await refresh(
          '--from',
          FIXTURE_SNAPSHOTS,
          '--out',
          layer,
          '--only',
          'lists',
          '--force',
        );
        expect(forced.code).toBe(0);
        expect((await loadEmailLists(join(layer, 'email'))).disposable.size).toBe(5);
      } finally {
        await rm(layer, { recursive: true, force: true });
      }
    });
  });
});
