import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataReport } from '../functions/lib/data-report.js';
import { createNodeMxResolver, dnsServerProblem, parseDnsServers } from '../functions/lib/dns/resolver.js';
import { EMAIL_LIST_FILES } from '../functions/lib/email/lists.js';
import {
  dateHolidayStates,
  parsePairs,
  parseSubdivisionAliases,
  SUBDIVISION_ALIASES_NAME,
  SUBDIVISION_PAIRS_NAME,
} from '../functions/lib/ip/compile/subdivision-inputs.js';
import { LISTS_CHECKS_FILE } from '../functions/lib/refresh/artifact-paths.js';
import {
  ipCurrentFromDir,
  publishIpToDir,
  readCurrentFromDir,
  writeArtifacts,
  writeIpChecks,
} from '../functions/lib/refresh/dir-store.js';
import type { SourceFetcher } from '../functions/lib/refresh/fetch.js';
import { GEONAMES_POSTAL_TARGET } from '../functions/lib/refresh/geonames.js';
import { httpFetcher } from '../functions/lib/refresh/http-fetcher.js';
import { geofeedFromUrl, runIpRefresh } from '../functions/lib/refresh/ip-refresh.js';
import { type IpDatabaseSources, ipDatabaseSources } from '../functions/lib/refresh/ip-sources.js';
import { MX_LEARN_DEFAULTS, mxLearning } from '../functions/lib/refresh/mx-learn.js';
import { listsCheckFile, runRefresh } from '../functions/lib/refresh/refresh.js';
import { snapshotFetcher } from '../functions/lib/refresh/snapshot-fetcher.js';
import { reportedVersion } from '../functions/lib/refresh/version.js';
import { type Config, ConfigError, parseConfig } from '../functions/lib/runtime/config.js';
import { dataInDirectory } from '../functions/lib/runtime/data-report.js';
import { sharedDataDir } from '../layers/build/build-data.js';
import { DATA_LAYER_DIR, removeStaleBuilds, updateBeside } from '../layers/build/data-layer.js';
import { buildEmailLists } from '../layers/build/email-lists.js';
import { readSubdivisionAliases } from '../layers/build/ip-data.js';
import { resolveNetworkData } from '../layers/build/security-data.js';
import { CliError } from './cli/cli-error.js';
import { readCommandLine, wholeNumber } from './cli/command-line.js';

// `npm run data:refresh -- [--from DIR | --upstream] [--out DIR] [--only lists|ip] [--mx-domains N] [--dns HOST[:PORT],...] [--force]`
//
// Refreshes the data the way the refresh Lambda does, into a local data directory (`--only` one part).
// The lists:
// security lists → <out>/security/{ranges.bin,manifest.json}; disposable-email lists and the MX-host
// table → <out>/email/{disposable,allowlist,mx-hosts}.txt + lists-manifest.json (the formats
// loadEmailLists reads). Sources: `--from DIR` reads a folder of snapshots;
// `--upstream` fetches every upstream URL (from DATA_UPSTREAM_MIRROR when set); with neither, the
// development machine's snapshot folder (SHARED_DATA_DIR) when it exists, else upstream. The output
// is validated against what <out> holds (a list shrinking by more than half, or an unparseable source, refuses the refresh: nothing is written, exit code 2);
// before the first refresh, against the layer's npm-built lists. `--force` skips the comparison with
// what <out> holds for this run (the lists, the databases, GeoNames, the geofeeds): a deliberate
// switch to a smaller source; every other check still applies. MX learning resolves `--mx-domains` of the listed, allow-listed and
// free-provider domains (default 1000 upstream, 0 from snapshots) through `--dns` or DNS_SERVERS,
// keeps them in email/mx-observations.txt and promotes a mail host only on the rule of
// functions/lib/refresh/mx-learn.ts (3 listed domains, no allow-listed or free-provider one).
// The IP data (functions/lib/refresh/ip-refresh.ts): the deployer's MaxMind or IPinfo databases when
// credentials are set, GeoNames' postal codes and admin1 names, the geofeeds (docs/data-sources.md) →
// <out>/ip/, manifest last; a running `npm start` swaps the new version in. Each accepted part is
// written into a copy of <out> beside it, swapped in whole (updateBeside): a refresh killed midway
// leaves the version in service as it was.

const USAGE =
  'usage: npm run data:refresh -- [--from DIR | --upstream] [--out DIR] [--only lists|ip] [--mx-domains N] [--dns SERVERS] [--force]';

const HELP = `${USAGE}

Refreshes the security lists, the disposable-email lists, the MX-host table and the IP data of a
local data directory, as the refresh function does in AWS (docs/data-sources.md).

  --from DIR        read snapshots of the sources from DIR (file names as the upstream URLs end)
  --upstream        fetch every source from its upstream URL (through DATA_UPSTREAM_MIRROR when set);
                    with neither, the snapshot folder SHARED_DATA_DIR names when it exists, else upstream
  --out DIR         the data directory (default: the one npm start serves, layers/data)
  --only lists|ip   refresh one part only
  --mx-domains N    domains whose MX records are resolved to learn mail hosts (default 1000, 0 with --from)
  --dns SERVERS     DNS servers for that, as DNS_SERVERS takes them (host[:port],...)
  --force           take a source smaller than the data in service (a deliberate switch)

Exit codes: 0 done (or nothing changed), 2 a refresh rejected (the data in service is kept; the
lines above say which source and why), 64 an option or variable to correct (nothing fetched).
Without a network, use --from DIR or a mirror (DATA_UPSTREAM_MIRROR).`;

/** Errors of a request that reached no server: this machine has no way to the upstreams. */
const UNREACHABLE = /fetch failed: (ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|ETIMEDOUT)/;

/** A rejected refresh's lines; when sources could not be reached at all, what to do offline. */
function printRejections(rejections: readonly { id: string; reason: string }[]): void {
  for (const r of rejections) console.error(`  ${r.id}: ${r.reason}`);
  const unreachable = rejections.filter((r) => UNREACHABLE.test(r.reason));
  const code = UNREACHABLE.exec(unreachable[0]?.reason ?? '')?.[1];
  if (code)
    console.error(
      `${unreachable.length} source${unreachable.length === 1 ? '' : 's'} could not be reached (${code}): ` +
        'is this machine offline? Refresh from snapshots of the sources (--from DIR) or through a mirror ' +
        '(DATA_UPSTREAM_MIRROR): docs/data-sources.md.',
    );
}

const OPTIONS = {
  from: { type: 'string' },
  upstream: { type: 'boolean', default: false },
  out: { type: 'string' },
  'mx-domains': { type: 'string' },
  dns: { type: 'string' },
  force: { type: 'boolean', default: false },
  only: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

/** Runs the refresh; a command line to correct exits 64 (EX_USAGE) with the usage. */
export async function main(argv: string[]): Promise<number> {
  try {
    return await refresh(argv);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(`${err.message}\n${USAGE}`);
    return 64;
  }
}

async function refresh(argv: string[]): Promise<number> {
  const { values } = readCommandLine(argv, OPTIONS);
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.from && values.upstream) {
    console.error(`--from and --upstream exclude each other\n${USAGE}`);
    return 64;
  }
  const out = resolve(values.out ?? process.env.NETINTEL_DATA_PATH ?? DATA_LAYER_DIR);
  const fromDir = values.from ? resolve(values.from) : values.upstream ? undefined : sharedDataDir();
  if (fromDir !== undefined && !existsSync(fromDir)) {
    console.error(`--from ${fromDir}: no such directory`);
    return 64;
  }
  if (values.only !== undefined && values.only !== 'lists' && values.only !== 'ip') {
    console.error(`--only ${values.only}: expected lists or ip\n${USAGE}`);
    return 64;
  }
  // The environment and --dns are checked before anything is fetched or written: a bad value is one
  // line, not a stack trace (a ConfigError, or c-ares refusing a server once the lists were built).
  let settings: Config;
  try {
    settings = parseConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`${err.message} (docs/configuration.md)`);
    return 64;
  }
  const dnsServers = values.dns === undefined ? settings.DNS_SERVERS : dnsOption(values.dns);
  // The IP sources the environment chooses too (a source without its credentials), not after the lists.
  let databases: IpDatabaseSources | undefined;
  if (values.only !== 'lists') {
    try {
      databases = ipDatabaseSources(settings);
    } catch (error) {
      console.error(`IP sources: ${(error as Error).message}`);
      return 64;
    }
  }
  const fetcher: SourceFetcher = fromDir
    ? snapshotFetcher(fromDir)
    : httpFetcher({ mirror: settings.DATA_UPSTREAM_MIRROR });
  const mxDomains =
    wholeNumber('mx-domains', values['mx-domains'], { min: 0 }) ??
    (fromDir ? 0 : MX_LEARN_DEFAULTS.maxDomains);
  console.log(`data refresh: sources from ${fromDir ?? 'upstream URLs'}, output to ${out}`);
  // A refresh killed in its swap put back first: the directory it had moved aside is the one in service.
  await removeStaleBuilds(out);

  const listsCode =
    values.only === 'ip' ? 0 : await refreshLists(out, fromDir, fetcher, mxDomains, dnsServers, values.force);
  const ipCode =
    databases === undefined ? 0 : await refreshIp(out, fromDir, fetcher, settings, databases, values.force);
  const missing = dataReport(await dataInDirectory(out)).missing;
  if (missing.length > 0) console.log(`still missing: ${missing.join('; ')}`);
  return Math.max(listsCode, ipCode);
}

/** The servers of `--dns` (the DNS_SERVERS format), or a CliError naming the first it cannot use. */
function dnsOption(value: string): string[] {
  const servers = parseDnsServers(value);
  for (const server of servers) {
    const problem = dnsServerProblem(server);
    if (problem) throw new CliError(`--dns ${server} ${problem}`);
  }
  return servers;
}

async function refreshLists(
  out: string,
  fromDir: string | undefined,
  fetcher: SourceFetcher,
  mxDomains: number,
  dnsServers: string[],
  force: boolean,
): Promise<number> {
  // The free, role and typo lists come from the layer build; a fresh output directory gets them
  // first so that it is a complete email directory (loadEmailLists needs free.txt and role.txt).
  const emailDir = join(out, 'email');
  const fresh =
    !existsSync(join(emailDir, EMAIL_LIST_FILES.free)) || !existsSync(join(emailDir, EMAIL_LIST_FILES.role));
  if (fresh) await buildEmailLists(emailDir);
  const inService = await readCurrentFromDir(out);
  // Lists built just now for a new directory were in service nowhere: nothing to hold the refresh to.
  const current = fresh ? { ...inService, listsInService: [] } : inService;
  const started = performance.now();
  const networks = await resolveNetworkData({ fromDir, dataRoot: out });
  const resolver =
    mxDomains > 0
      ? createNodeMxResolver({
          servers: dnsServers,
          timeoutMs: 2_000,
        })
      : null;
  const outcome = await runRefresh({
    fetcher,
    networks,
    current,
    mx: mxLearning(resolver, mxDomains),
    now: () => new Date(),
    force,
  }).finally(() => resolver?.close());
  // What the run did, beside the lists (GET /v1/data): a rejected run writes nothing else. Written
  // after the swap when accepted, so that the copy swapped in does not drop it.
  const writeCheck = () =>
    writeArtifacts(out, [
      { path: LISTS_CHECKS_FILE, body: listsCheckFile(outcome, new Date()), contentType: 'application/json' },
    ]);

  if (!outcome.accepted) {
    await writeCheck();
    console.error(
      `refresh REJECTED (current data kept in ${out}; version ${reportedVersion(current.version) ?? 'none'}):`,
    );
    printRejections(outcome.rejections);
    return 2;
  }
  // Written into a copy of the data directory swapped in whole: a kill never leaves a mix (data-layer.ts).
  await updateBeside(out, (dir) => writeArtifacts(dir, outcome.files));
  await writeCheck();
  const { ranges, bytes } = outcome.security.artifact;
  console.log(
    `version ${outcome.version} written in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
      `security ${ranges.v4} IPv4 + ${ranges.v6} IPv6 ranges (${bytes} bytes); ` +
      `email ${outcome.email.counts.disposable} disposable, ${outcome.email.counts.mxHosts} MX hosts` +
      (outcome.email.mx.queried > 0
        ? ` (${outcome.email.mx.queried} MX queried, ${outcome.email.mx.learned} hosts promoted)`
        : ''),
  );
  for (const source of [...outcome.security.sources, ...outcome.email.sources]) {
    for (const f of source.files) {
      if (f.status !== 'ok') console.log(`  note: ${f.id} left out (${f.note ?? 'unavailable'})`);
    }
  }
  return 0;
}

/**
 * The IP data (ip-refresh.ts): the deployer's databases when credentials are set, GeoNames' postal
 * codes and admin1 names (unless a snapshot folder has no GeoNames dump), the geofeeds. Written into
 * <out>/ip/, where a running `npm start` swaps the new version in (ip-data.ts).
 */
async function refreshIp(
  out: string,
  fromDir: string | undefined,
  fetcher: SourceFetcher,
  settings: Config,
  databases: IpDatabaseSources,
  force: boolean,
): Promise<number> {
  const started = performance.now();
  const current = await ipCurrentFromDir(out);
  const ipDir = join(out, 'ip');
  if (current.manifest === null && databases.location === null) {
    console.log(
      `no IP data in ${ipDir} to refresh (build it first: npm run build:data -- or npm start): IP data skipped`,
    );
    return 0;
  }
  const aliases = existsSync(join(ipDir, SUBDIVISION_ALIASES_NAME))
    ? parseSubdivisionAliases(await readFile(join(ipDir, SUBDIVISION_ALIASES_NAME), 'utf8'))
    : await readSubdivisionAliases();
  const geofeeds = settings.GEOFEEDS.map((feed) =>
    /^https?:\/\//i.test(feed)
      ? geofeedFromUrl(fetcher, feed)
      : { origin: basename(feed), text: () => readFile(resolve(feed), 'utf8') },
  );
  const pairsFile = join(ipDir, SUBDIVISION_PAIRS_NAME);
  const outcome = await runIpRefresh({
    current,
    fetcher,
    ...(existsSync(pairsFile) ? { cityPairs: parsePairs(await readFile(pairsFile, 'utf8')) } : {}),
    databases,
    geofeeds,
    geonames: fromDir === undefined || existsSync(join(fromDir, GEONAMES_POSTAL_TARGET.snapshot as string)),
    subdivisionSources: { holidays: await dateHolidayStates(), aliases },
    now: () => new Date(),
    force,
  });
  const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (outcome.status === 'rejected') {
    await writeIpChecks(out, outcome.checks);
    console.error(
      `IP data refresh REJECTED (current data kept in ${ipDir}; version ${reportedVersion(current.manifest?.version) ?? 'none'}):`,
    );
    printRejections(outcome.rejections);
    return 2;
  }
  if (outcome.status === 'unchanged') {
    await writeIpChecks(out, outcome.checks);
    console.log(`IP data unchanged (version ${outcome.version ?? 'none'}; checked in ${took})`);
    return 0;
  }
  await updateBeside(out, (dir) => publishIpToDir(dir, outcome.files, outcome.checks));
  console.log(
    `IP data version ${outcome.version} written in ${took}: ` +
      outcome.manifest.datasets.map((d) => `${d.role ?? d.name} ${d.name} (${d.count})`).join(', '),
  );
  for (const c of outcome.checks) if (c.status === 'removed') console.log(`  note: ${c.note}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.exitCode = await main(process.argv.slice(2));
}
