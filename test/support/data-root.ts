import { cp, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compilePostalCsv } from '../../functions/lib/ip/compile/postal.js';
import {
  dateHolidayStates,
  parseSubdivisionAliases,
  SUBDIVISION_ALIASES_NAME,
  SUBDIVISION_PAIRS_NAME,
} from '../../functions/lib/ip/compile/subdivision-inputs.js';
import { compileSubdivisions } from '../../functions/lib/ip/compile/subdivisions.js';
import {
  IP_DATA_FILES,
  type IpManifest,
  type ManifestEntry,
  parseIpManifest,
} from '../../functions/lib/ip/manifest.js';
import { versionId } from '../../functions/lib/refresh/version.js';
import { DATA_LAYER_DIR } from '../../layers/build/data-layer.js';
import { buildOwnDatabase } from '../../layers/build/ip-data.js';
import { buildSecurityData } from '../../layers/build/security-data.js';

// A data root for one test, made in a second from the built data layer: its large files linked, not
// copied (a refresh replaces a file through a rename, which replaces the link, never the layer's
// file), and the parts a test chooses replaced:
//   location / network  the deployer's own database files (GEO_CITY_MMDB / GEO_ASN_MMDB), opened and
//                       described by the layer build's own code
//   noGeonames          no postal codes and subdivision names without GeoNames', as a layer built
//                       on a fresh clone has (whatever this checkout's layer was built with)
//   noSecurity          the empty security artifact of a fresh clone (every flag false)

export interface DataRootOptions {
  location?: string;
  network?: string;
  noGeonames?: boolean;
  noSecurity?: boolean;
}

export async function makeDataRoot(options: DataRootOptions = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'netintel-data-'));
  const ip = join(root, 'ip');
  await mkdir(ip);
  for (const part of ['email', 'rdap', 'manifest.json'])
    await cp(join(DATA_LAYER_DIR, part), join(root, part), { recursive: true });
  if (options.noSecurity) await buildSecurityData(join(root, 'security'));
  else await cp(join(DATA_LAYER_DIR, 'security'), join(root, 'security'), { recursive: true });

  const layer = parseIpManifest(await readFile(join(DATA_LAYER_DIR, 'ip', IP_DATA_FILES.manifest), 'utf8'));
  for (const name of [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6, IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6]) {
    await symlink(join(DATA_LAYER_DIR, 'ip', name), join(ip, name));
  }
  for (const name of [IP_DATA_FILES.geofeed, SUBDIVISION_ALIASES_NAME, SUBDIVISION_PAIRS_NAME]) {
    await cp(join(DATA_LAYER_DIR, 'ip', name), join(ip, name));
  }
  const datasets: ManifestEntry[] = [];
  const keep = (role: ManifestEntry['role']) => {
    const entry = layer.datasets.find((d) => d.role === role);
    if (entry) datasets.push(entry);
  };
  if (options.location)
    datasets.push(await buildOwnDatabase(ip, options.location, 'location', 'GEO_CITY_MMDB'));
  else keep('location');
  if (options.network) datasets.push(await buildOwnDatabase(ip, options.network, 'network', 'GEO_ASN_MMDB'));
  else keep('network');
  if (options.noGeonames) {
    await writeFile(join(ip, IP_DATA_FILES.postal), (await compilePostalCsv([])).file);
    const aliases = parseSubdivisionAliases(await readFile(join(ip, SUBDIVISION_ALIASES_NAME), 'utf8'));
    const table = compileSubdivisions(new Map(), { holidays: await dateHolidayStates(), aliases }).table;
    await writeFile(join(ip, IP_DATA_FILES.subdivisions), JSON.stringify(table));
    datasets.push(
      {
        name: 'subdivisions',
        version: table.source,
        licence: 'ISC AND CC-BY-3.0',
        source: 'curated aliases + npm date-holidays (no GeoNames names)',
        count: 0,
        role: 'subdivisions',
        files: [IP_DATA_FILES.subdivisions],
      },
      {
        name: 'geonames-postal-codes',
        version: 'none',
        licence: 'CC-BY-4.0',
        source: 'none',
        count: 0,
        role: 'postal',
        files: [IP_DATA_FILES.postal],
        missing: true,
      },
    );
  } else {
    await symlink(join(DATA_LAYER_DIR, 'ip', IP_DATA_FILES.postal), join(ip, IP_DATA_FILES.postal));
    await cp(join(DATA_LAYER_DIR, 'ip', IP_DATA_FILES.subdivisions), join(ip, IP_DATA_FILES.subdivisions));
    keep('subdivisions');
    keep('postal');
  }
  keep('geofeed');
  const manifest: IpManifest = { version: versionId(new Date('2026-01-01T00:00:00Z'), 'a0'), datasets };
  await writeFile(join(ip, IP_DATA_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return root;
}
