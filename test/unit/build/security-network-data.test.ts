import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import { parseSecurityManifest, type SecurityManifest } from '../../../functions/lib/security/manifest.js';
import { buildSecurityData } from '../../../layers/build/security-data.js';
import { FIXTURE_SNAPSHOTS } from '../security/support/fixtures.js';

// `npm run build:data` compiles the ASN data once, into the layer's ip/ files, and the security
// build reads those instead of compiling the packages' CSVs again. Here the layer's ip/ files hold
// the fixture ASN ranges, so a security build that went back to the packages would not find them.

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'netintel-security-layer-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * The fixture snapshots without their own ASN data (the data snapshots beside the checkout have none
 * either).
 */
async function snapshotsWithoutAsnData(): Promise<string> {
  const dir = join(root, 'snapshots');
  await cp(FIXTURE_SNAPSHOTS, dir, { recursive: true });
  await rm(join(dir, 'ip-location-db'), { recursive: true });
  return dir;
}

/** A layer whose ip/ holds the fixture ASN ranges, compiled as layers/build/ip-data.ts does. */
async function layerWithFixtureAsnData(): Promise<string> {
  const layer = join(root, 'layer');
  await mkdir(join(layer, 'ip'), { recursive: true });
  for (const [family, csv, target] of [
    [4, 'asn-ipv4.csv', IP_DATA_FILES.asnV4],
    [6, 'asn-ipv6.csv', IP_DATA_FILES.asnV6],
  ] as const) {
    const lines = (await readFile(join(FIXTURE_SNAPSHOTS, 'ip-location-db', csv), 'utf8')).split('\n');
    await writeFile(join(layer, 'ip', target), (await compileAsnCsv(lines, family)).file);
  }
  return layer;
}

async function manifestOf(securityDir: string): Promise<SecurityManifest> {
  return parseSecurityManifest(await readFile(join(securityDir, 'manifest.json'), 'utf8'));
}

/** Ranges derived from listed ASNs, per derived file (the sanctioned rule also needs city data). */
function asnDerivedCounts(manifest: SecurityManifest): Record<string, number> {
  const files = manifest.sources.flatMap((s) => s.files);
  return Object.fromEntries(
    files
      .filter((f) => f.id.startsWith('derived:') && f.id !== 'derived:sanctioned-ranges')
      .map((f) => [f.id, f.count]),
  );
}

describe('the security part of a full layer build', () => {
  test('expands listed ASNs with the ip/ files the layer build just wrote', async () => {
    const layer = await layerWithFixtureAsnData();
    await buildSecurityData(join(root, 'security'), {
      fromDir: await snapshotsWithoutAsnData(),
      builtLayer: layer,
    });
    await buildSecurityData(join(root, 'reference'), { fromDir: FIXTURE_SNAPSHOTS });

    const counts = asnDerivedCounts(await manifestOf(join(root, 'security')));
    expect(Object.keys(counts).length).toBeGreaterThan(0);
    expect(Object.values(counts).some((n) => n > 0)).toBe(true);
    expect(counts).toEqual(asnDerivedCounts(await manifestOf(join(root, 'reference'))));
  });

  test('names the packages as the ASN source, not the directory the layer was built in', async () => {
    await buildSecurityData(join(root, 'security'), {
      fromDir: await snapshotsWithoutAsnData(),
      builtLayer: await layerWithFixtureAsnData(),
    });
    const { networkData } = await manifestOf(join(root, 'security'));
    expect(networkData).toMatch(/^npm @ip-location-db\/asn@\S+ \+ @ip-location-db\/dbip-city-mmdb@\S+$/);
  });
});
