import { parseDnsCanary } from '../functions/lib/dns/canary.js';
import { logger } from '../functions/lib/observability.js';
import { ConfigError, environmentConfig } from '../functions/lib/runtime/config.js';
import { dnsCanary } from '../functions/lib/runtime/email.js';
import { ensureDataLayer } from '../layers/build/data-layer.js';
import { dataBanner } from './local/data-banner.js';
import { DataDirInUse, lockDataDir } from './local/data-dir-lock.js';
import { portIsFree } from './local/free-port.js';
import { DEV_MEMBER } from './local/seed.js';
import { localDataDir, startLocalStack } from './local/stack.js';
import { dataDirKind, readLocalSwitches } from './local/switches.js';

// `npm start`: the whole API on this machine (see docs/operations.md, "Run it locally").
// The local stack's own variables first (PORT, WORKERS, LOG_FORMAT and the switches): a misspelt one
// fails in one line instead of reading as off.
// Each is read here once; what follows uses these values, not the variables again. DATA_DIR must be
// a folder this user may read and write, or nothing yet where it may make one: a file there, or a
// folder it may not use (EACCES), failed in the lock with a stack trace.
const dataDir = localDataDir();
const switches = readLocalSwitches(process.env, { path: dataDir, kind: dataDirKind(dataDir) });
if ('problem' in switches) {
  console.error(switches.problem);
  process.exit(2);
}
const { port, host, workers } = switches.switches;
function portInUse(): never {
  console.error(`Port ${port} is in use (another npm start?): stop that server or set PORT to another port.`);
  process.exit(1);
}

// Logs (docs/operations.md: Logs): the functions' Powertools entries and one access-log line per request, at
// INFO unless POWERTOOLS_LOG_LEVEL says otherwise; readable lines in a terminal or with
// LOG_FORMAT=pretty, Powertools JSON when piped or with LOG_FORMAT=json.
// In capitals: Powertools' setLogLevel (scripts/local/stack.ts, each worker) takes no other case.
process.env.POWERTOOLS_LOG_LEVEL = switches.switches.logLevel ?? 'INFO';
const logFormat = switches.switches.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json');
logger.useFormat(logFormat);
// Gateway worker processes (WORKERS above 1) read the same format from here.
process.env.LOG_FORMAT = logFormat;

// The functions' configuration (docs/configuration.md), checked before anything starts: a bad value
// is one line naming its variable, not a stack trace after the emulators have started.
try {
  environmentConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`${err.message} (docs/configuration.md)`);
  process.exit(2);
}

// Before anything starts: a port in use is known in a second, not after the emulators, the seed and
// the workers have started. Another process may still take it meanwhile: the listen says so too.
// Another reason it cannot listen (a HOST this machine does not have, a port it may not use) is one
// line too, not a stack trace.
if (port !== 0) {
  const free = await portIsFree(port, host).catch((err: NodeJS.ErrnoException) => {
    console.error(
      `Cannot listen on ${host}:${port} (${err.code ?? err.message}): set HOST or PORT to one this machine can use.`,
    );
    process.exit(1);
  });
  if (!free) portInUse();
}

// One npm start per data directory: another one's emulators on the same files crashed this one
// (scripts/local/data-dir-lock.ts). Held until this process exits, however it exits; a lock that
// a killed process left is taken over.
try {
  const lock = lockDataDir(dataDir);
  process.on('exit', () => lock.release());
} catch (err) {
  if (!(err instanceof DataDirInUse)) throw err;
  console.error(err.message);
  process.exit(1);
}

// Built on first run, and rebuilt when this source builds another layer format than the one built.
// A source the environment names that cannot be used (GEO_CITY_MMDB naming a missing or wrong
// file, say) stops the start with the build's reason, not a stack trace.
// A layer that holds refreshed data is not rebuilt for other sources: the banner says so (data-layer.ts).
let layerKept = '';
await ensureDataLayer({
  dataDir: process.env.NETINTEL_DATA_PATH,
  keepRefreshed: true,
  kept: (note) => {
    layerKept = note;
  },
}).catch((err: Error) => {
  console.error(`The data layer could not be built (the layer in service is left as it was): ${err.message}`);
  process.exit(2);
});

const stack = await startLocalStack({
  dataDir,
  port,
  host,
  workers,
  log: (line) => logger.info(line),
  warn: (line) => logger.warn(line),
}).catch((err: NodeJS.ErrnoException) => {
  if (err.code !== 'EADDRINUSE') throw err;
  return portInUse();
});

console.log(`
netintel is running at ${stack.url}
  data dir:        ${stack.dataDir}
  dev account:     ${stack.dev.accountId} (plan pro)
  publishable key: ${stack.dev.publishableKey}   (origins http://localhost:*, http://127.0.0.1:*)
  secret key:      ${stack.dev.secretKey}
  API reference:   ${stack.url}/docs
  dashboard:       ${stack.url}/dashboard/   (sign in as ${DEV_MEMBER}: the link is printed here)

Try:
  curl -s ${stack.url}/v1/lookup/8.8.8.8 -H "Authorization: Bearer ${stack.dev.secretKey}"
Ctrl-C stops it; stored data is kept in the data dir.
${await dataBanner(stack.services)}${layerKept ? `\n\nDATA LAYER NOT REBUILT: ${layerKept}` : ''}
`);

// A resolver that answers NXDOMAIN for everything (a sandbox, no network) would make every address
// look undeliverable; the email checks then say dns_unavailable instead, and this says why.
if (!(await dnsCanary(stack.services).healthy())) {
  console.log(`WARNING: DNS here does not resolve the MX records of ${parseDnsCanary(process.env.DNS_CANARY).join(', ')}
  (DNS_CANARY). Until it does, email checks report mx.status "unknown" with reason dns_unavailable
  instead of domain_not_found or no_mail_server. Point DNS_SERVERS at a working resolver to check
  real domains.
`);
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping...`);
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
