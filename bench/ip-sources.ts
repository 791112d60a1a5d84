import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IpManifest } from '../functions/lib/ip/manifest.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { COUNT, ensureData, RSS_TARGET_MB, randomPublicIps, runChild } from './ip.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// The IP lookup on each location and network source a deployment can choose (functions/lib/ip/
// sources.ts), on the same 10,000 random public addresses as bench/ip.ts, measured in one run:
//   - DB-IP Lite city + the compiled ASN files: the built layer, real data (the default),
//   - MaxMind City + MaxMind ASN, and IPinfo Lite for both roles: no real file is at hand offline
//     (and none may be downloaded), so invented databases of those schemas written at bench time by
//     bench/support/synthetic-mmdb.pl (left out when Perl's MaxMind::DB::Writer is missing).
// Per source, in a fresh process of its own (so one source's reader code and heap do not colour the
// next's): the raw `maxmind` reader's lookups/s on the source's location file(s), the full enriched
// lookup/s (createIpLookup over a data directory holding the source, no security classifier), their
// ratio, and the share of the addresses found; then, in further fresh processes (bench/ip.ts's
// child), resident memory after loading the source and answering the 10,000, and cold start to the
// first answer. Each synthetic data directory is made as data-root.ts makes one for the tests: the
// deployer's file brought in by the layer build's buildOwnDatabase, the layer's subdivision table,
// postal index and geofeeds beside it, and a manifest naming them.

const SAMPLES = 7;
const CHILD_RUNS = 3;
const CHILD_FLAG = '--ip-sources-bench-child';
const GENERATOR = join(PROJECT_ROOT, 'bench', 'support', 'synthetic-mmdb.pl');
/** Networks of the synthetic databases, and their seed: about 20 s of generation on the bench machine. */
const V4_NETWORKS = 300_000;
const V6_NETWORKS = 30_000;
const SEED = 1;

/** How the module measures; run() adds what was generated (bench/run.ts reads it after run()). */
export let about = [
  'Each source in a data directory of its own, measured on the 10,000 random public addresses of `bench/ip.ts` (every',
  'tenth IPv6, in the RIR blocks). Raw: the `maxmind` reader (`maxmind.open`, its default cache) on the location',
  'file(s) only: `city-v4.mmdb` + `city-v6.mmdb` for DB-IP, the one file for MaxMind City and IPinfo Lite. Enriched:',
  '`createIpLookup` over the directory (parse, special ranges, location, network, subdivision, postal code, time zone',
  'and every derived group), no security classifier. Rates and found share in one fresh process per source (warmed',
  'up, raw and enriched passes interleaved); memory and cold start in further fresh processes, as in `bench/ip.ts`.',
  'DB-IP Lite and the compiled ASN files are the built layer (real data). No MaxMind or IPinfo database is available',
  'offline, so theirs are invented: `bench/support/synthetic-mmdb.pl` writes them in the GeoIP2-City, GeoLite2-ASN',
  'and IPinfo Lite schemas at bench time (made-up cities in real subdivisions, with postal codes, coordinates,',
  "accuracy radii and time zones; continent and country names in MaxMind's eight languages; made-up ASes).",
].join('\n');

const GROUPS = {
  dbip: 'DB-IP Lite city + compiled ASN (built layer, real data)',
  maxmind: 'MaxMind City + MaxMind ASN (synthetic GeoIP2-City and GeoLite2-ASN files)',
  ipinfo: 'IPinfo Lite for location and network (synthetic file)',
  synthetic: 'Synthetic databases',
} as const;

interface Source {
  group: string;
  /** The IP data directory the lookup opens. */
  dir: string;
  /** The location file(s) the raw reader opens: [IPv4, IPv6] for DB-IP, else one. */
  rawFiles: string[];
}

interface RateReport {
  raw: number[];
  enriched: number[];
  ratios: number[];
  found4: number;
  found6: number;
  count4: number;
  count6: number;
}

interface Generated {
  v4Networks: number;
  v6Networks: number;
  v4Coverage: number;
  cities: number;
  cityRecords: number;
  ases: number;
  ipinfoRecords: number;
  prefixLengths: Record<string, number>;
  files: Record<string, number>;
}

const CITY_FILE = 'GeoIP2-City-Synthetic.mmdb';
const ASN_FILE = 'GeoLite2-ASN-Synthetic.mmdb';
const IPINFO_FILE = 'ipinfo-lite-Synthetic.mmdb';

function perlWriterPresent(): boolean {
  return spawnSync('perl', ['-MMaxMind::DB::Writer::Tree', '-e1'], { stdio: 'ignore' }).status === 0;
}

/** Writes the three synthetic databases into `dir`; returns what the generator reports and its time. */
async function generate(dir: string): Promise<{ generated: Generated; ms: number }> {
  const started = performance.now();
  const out = await new Promise<string>((resolvePromise, reject) => {
    const child = spawn('perl', [GENERATOR, dir, String(V4_NETWORKS), String(V6_NETWORKS), String(SEED)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      text += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolvePromise(text) : reject(new Error(`synthetic-mmdb.pl exited with ${code}`)),
    );
  });
  const ms = performance.now() - started;
  return { generated: JSON.parse(out.trim().split('\n').at(-1) ?? '') as Generated, ms };
}

/**
 * An IP data directory serving the deployer's own location and network files, made as
 * test/support/data-root.ts makes one: each file brought in by the layer build's buildOwnDatabase
 * (detected, opened, copied, described), the layer's subdivision table, postal index and geofeeds
 * beside them, and a manifest `{version, datasets}` with the layer's entries for those.
 */
async function ownSourceDir(
  layerDir: string,
  dir: string,
  location: string,
  network: string,
): Promise<string> {
  const { buildOwnDatabase } = await import('../layers/build/ip-data.js');
  const { IP_DATA_FILES, parseIpManifest } = await import('../functions/lib/ip/manifest.js');
  const { versionId } = await import('../functions/lib/refresh/version.js');
  await mkdir(dir, { recursive: true });
  const layer = parseIpManifest(await readFile(join(layerDir, IP_DATA_FILES.manifest), 'utf8'));
  for (const name of [IP_DATA_FILES.subdivisions, IP_DATA_FILES.postal, IP_DATA_FILES.geofeed]) {
    await symlink(join(layerDir, name), join(dir, name));
  }
  const datasets = [
    await buildOwnDatabase(dir, location, 'location', 'GEO_CITY_MMDB'),
    await buildOwnDatabase(dir, network, 'network', 'GEO_ASN_MMDB'),
    ...layer.datasets.filter((d) => d.role === 'subdivisions' || d.role === 'postal' || d.role === 'geofeed'),
  ];
  const manifest: IpManifest = { version: versionId(new Date(), 'b0'), datasets };
  await writeFile(join(dir, IP_DATA_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

/** Runs this file in a fresh Node process (same loader flags) to measure the rates of one source. */
function runRateChild(source: Source, ipsFile: string): Promise<RateReport> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        CHILD_FLAG,
        source.dir,
        ipsFile,
        JSON.stringify(source.rawFiles),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`benchmark child exited with ${code}: ${out}`));
      else resolvePromise(JSON.parse(line) as RateReport);
    });
  });
}

/** Child side: raw and enriched rates of one source, interleaved, and what the enriched lookup found. */
async function childMain(dataDir: string, ipsFile: string, rawFiles: string[]): Promise<void> {
  const ips = JSON.parse(await readFile(ipsFile, 'utf8')) as string[];
  const maxmind = (await import('maxmind')).default;
  const { createIpLookup } = await import('../functions/lib/ip/lookup.js');
  const { parseIp } = await import('../functions/lib/ip/parse-ip.js');
  const readers = await Promise.all(rawFiles.map((f) => maxmind.open(f)));
  const raw4 = readers[0]!;
  const raw6 = readers[1] ?? raw4;
  const lookup = createIpLookup({ dataDir });

  const passRaw = () => {
    let hits = 0;
    for (const ip of ips) if ((ip.includes(':') ? raw6 : raw4).get(ip)) hits++;
    return hits;
  };
  const passOurs = async () => {
    let hits = 0;
    for (const ip of ips) if ((await lookup.lookup(parseIp(ip)!)).found) hits++;
    return hits;
  };
  const rate = async (pass: () => number | Promise<number>) => {
    const t = performance.now();
    await pass();
    return ips.length / ((performance.now() - t) / 1000);
  };

  let found4 = 0;
  let found6 = 0;
  for (const ip of ips) {
    if (!(await lookup.lookup(parseIp(ip)!)).found) continue;
    if (ip.includes(':')) found6++;
    else found4++;
  }
  // Warm-up: JIT, and every cache the enriched lookup fills on first sight of a place.
  for (let i = 0; i < 2; i++) {
    passRaw();
    await passOurs();
  }
  const report: RateReport = {
    raw: [],
    enriched: [],
    ratios: [],
    found4,
    found6,
    count6: ips.filter((ip) => ip.includes(':')).length,
    count4: ips.filter((ip) => !ip.includes(':')).length,
  };
  // Interleaved, so drift (GC, CPU frequency) hits both alike.
  for (let i = 0; i < SAMPLES; i++) {
    const r = await rate(passRaw);
    const o = await rate(passOurs);
    report.raw.push(r);
    report.enriched.push(o);
    report.ratios.push(o / r);
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

const pct = (part: number, whole: number) => round((100 * part) / whole, 1);

async function measure(source: Source, ipsFile: string, synthetic: boolean): Promise<BenchResult[]> {
  console.log(`  ${source.group}...`);
  // Memory and cold start first, in processes of their own.
  const colds: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < CHILD_RUNS; i++) {
    const report = await runChild(source.dir, ipsFile);
    colds.push(report.coldStartMs);
    rss.push(report.rssMb);
  }
  const rates = await runRateChild(source, ipsFile);
  const ratio = median(rates.enriched) / median(rates.raw);
  const rssMedian = median(rss);
  const files = source.rawFiles.map((f) => f.split('/').at(-1)).join(' + ');
  const group = source.group;
  return [
    {
      group,
      figure: `raw maxmind reader on the location data (${files}), 10,000 random public IPs`,
      median: round(median(rates.raw), 0),
      spread: minMax(rates.raw, 0),
      unit: 'lookups/s',
      samples: SAMPLES,
    },
    {
      group,
      figure: 'full enriched lookup (createIpLookup, no security classifier), same IPs',
      median: round(median(rates.enriched), 0),
      spread: minMax(rates.enriched, 0),
      unit: 'lookups/s',
      samples: SAMPLES,
    },
    {
      group,
      figure: 'enriched / raw rate',
      median: round(ratio, 2),
      spread: minMax(rates.ratios, 2),
      unit: 'ratio',
      // The exact ratio too: 0.329 prints as 0.33 in the table.
      target: `>= 0.33: ${ratio >= 1 / 3 ? 'met' : 'not met'} (${round(ratio, 3)})`,
      samples: SAMPLES,
    },
    {
      group,
      figure:
        `addresses found by the enriched lookup (IPv4 ${pct(rates.found4, rates.count4)}% of ` +
        `${rates.count4.toLocaleString('en-US')}, IPv6 ${pct(rates.found6, rates.count6)}% of ` +
        `${rates.count6.toLocaleString('en-US')})` +
        (synthetic ? '; the synthetic data covers less of the space than real databases' : ''),
      median: pct(rates.found4 + rates.found6, rates.count4 + rates.count6),
      spread: '–',
      unit: '% of 10,000',
      samples: 1,
    },
    {
      group,
      figure: 'resident memory with this source loaded, after 10,000 lookups (fresh process)',
      median: round(rssMedian, 0),
      spread: minMax(rss, 0),
      unit: 'MB (RSS)',
      target: `< ${RSS_TARGET_MB} MB: ${rssMedian < RSS_TARGET_MB ? 'met' : 'not met'}`,
      samples: rss.length,
    },
    {
      group,
      figure: 'cold start to first answer (import + open data + first lookup, fresh process)',
      median: round(median(colds), 0),
      spread: minMax(colds, 0),
      unit: 'ms',
      samples: colds.length,
    },
  ];
}

const mb = (bytes: number) => `${round(bytes / 2 ** 20, 1)} MB`;

/** Words joined into lines of at most `width` characters, like the static text above. */
function wrap(text: string, width = 115): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}

function describe(g: Generated, ms: number, sizes: Record<string, number>): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lengths = Object.entries(g.prefixLengths)
    .map(([len, count]) => `${len} ${n(count)}`)
    .join(', ');
  return wrap(
    `Synthetic databases of this run (seed ${SEED}): ${n(g.v4Networks)} IPv4 networks, the public space cut at ` +
      `random into /12-/24 blocks with one in ten left out (${round(100 * g.v4Coverage, 1)}% of the public IPv4 ` +
      `space covered), and ${n(g.v6Networks)} IPv6 /32-/48 networks at random gaps over 2001:400:: to 2fff:ffff:: ` +
      `(a tiny share of it); prefix lengths: ${lengths}. ${n(g.cities)} cities in ${n(g.cityRecords)} distinct City ` +
      `records, ${n(g.ases)} ASes, ${n(g.ipinfoRecords)} distinct IPinfo records. Files: ${CITY_FILE} ` +
      `${mb(sizes[CITY_FILE]!)}, ${ASN_FILE} ${mb(sizes[ASN_FILE]!)}, ${IPINFO_FILE} ${mb(sizes[IPINFO_FILE]!)}, ` +
      `written in ${round(ms / 1000, 1)} s. Real files hold several times the networks (GeoLite2-City is some ` +
      '60 MB), so the synthetic memory figures are lower than a real deployment would see. IPinfo for both roles ' +
      'serves the one file twice: the layer build copies it in as location.mmdb and as network.mmdb, and each is ' +
      'read into memory.',
  );
}

export async function run(): Promise<BenchResult[]> {
  const data = await ensureData();
  const tmp = await mkdtemp(join(tmpdir(), 'netintel-bench-ip-sources-'));
  try {
    const ips = await randomPublicIps(COUNT);
    const ipsFile = join(tmp, 'ips.json');
    await writeFile(ipsFile, JSON.stringify(ips));
    const results = await measure(
      {
        group: GROUPS.dbip,
        dir: data.dir,
        rawFiles: [join(data.dir, 'city-v4.mmdb'), join(data.dir, 'city-v6.mmdb')],
      },
      ipsFile,
      false,
    );

    if (!perlWriterPresent()) {
      console.log(
        '  no Perl MaxMind::DB::Writer::Tree (libmaxmind-db-writer-perl): synthetic sources left out',
      );
      results.push({
        group: GROUPS.synthetic,
        figure:
          'MaxMind City + ASN and IPinfo Lite: left out, Perl MaxMind::DB::Writer::Tree absent (Debian libmaxmind-db-writer-perl)',
        median: 0,
        spread: '–',
        unit: 'n/a',
        samples: 0,
      });
      return results;
    }
    const synthetic = join(tmp, 'synthetic');
    await mkdir(synthetic);
    console.log(`  generating synthetic databases (${V4_NETWORKS} IPv4 + ${V6_NETWORKS} IPv6 networks)...`);
    const { generated, ms } = await generate(synthetic);
    const sizes: Record<string, number> = {};
    for (const f of [CITY_FILE, ASN_FILE, IPINFO_FILE]) sizes[f] = (await stat(join(synthetic, f))).size;
    about = `${about}\n\n${describe(generated, ms, sizes)}`;

    const maxmindDir = await ownSourceDir(
      data.dir,
      join(tmp, 'maxmind', 'ip'),
      join(synthetic, CITY_FILE),
      join(synthetic, ASN_FILE),
    );
    const ipinfoDir = await ownSourceDir(
      data.dir,
      join(tmp, 'ipinfo', 'ip'),
      join(synthetic, IPINFO_FILE),
      join(synthetic, IPINFO_FILE),
    );
    results.push(
      ...(await measure(
        { group: GROUPS.maxmind, dir: maxmindDir, rawFiles: [join(maxmindDir, 'location.mmdb')] },
        ipsFile,
        true,
      )),
      ...(await measure(
        { group: GROUPS.ipinfo, dir: ipinfoDir, rawFiles: [join(ipinfoDir, 'location.mmdb')] },
        ipsFile,
        true,
      )),
      {
        group: GROUPS.synthetic,
        figure: `generation by synthetic-mmdb.pl: ${V4_NETWORKS.toLocaleString('en-US')} IPv4 + ${V6_NETWORKS.toLocaleString('en-US')} IPv6 networks, three files of ${mb(sizes[CITY_FILE]! + sizes[ASN_FILE]! + sizes[IPINFO_FILE]!)}`,
        median: round(ms / 1000, 1),
        spread: '–',
        unit: 's',
        samples: 1,
      },
    );
    return results;
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await data.cleanup();
  }
}

if (process.argv[2] === CHILD_FLAG) {
  await childMain(process.argv[3]!, process.argv[4]!, JSON.parse(process.argv[5]!) as string[]);
  process.exit(0);
}
