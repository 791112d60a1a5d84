import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDomainAgeCache } from '../aws/domain-age-cache.js';
import { dynamo } from '../aws/dynamo-client.js';
import { tableName } from '../aws/resources.js';
import { dataRoot, now } from '../aws/services.js';
import { logger } from '../observability.js';
import type { SignupCheckDeps } from '../signup/check.js';
import {
  createDomainAgeLookup,
  type DomainAgeLookup,
  EMPTY_RDAP_BOOTSTRAP,
  parseRdapBootstrap,
  RDAP_BOOTSTRAP_PATH,
  type RdapBootstrap,
  sharedBootstrap,
} from '../signup/domain-age.js';
import { type Config, config, resetConfig } from './config.js';
import { emailChecker } from './email.js';
import { ipLocator } from './ip.js';

// The container's signup-check wiring: the email checker and IP locator of their own runtime modules,
// and the domain-age lookup with its RDAP bootstrap (read once) and its DynamoDB cache.
//   RDAP_BOOTSTRAP_URL  an http(s) URL or a file path of an IANA dns.json; default: the data layer's
//                       `${dataRoot()}/rdap/dns.json` (layers/build/rdap-bootstrap.ts)
//   RDAP_TIMEOUT_MS     time allowed for one RDAP query (default 1500)

const BOOTSTRAP_FETCH_TIMEOUT_MS = 5000;

let cache: DynamoDomainAgeCache | undefined;
let bootstrap: (() => Promise<RdapBootstrap>) | undefined;
let lookup: DomainAgeLookup | undefined;

export function domainAgeCache(): DynamoDomainAgeCache {
  cache ??= new DynamoDomainAgeCache(dynamo(), tableName('Cache', config()), now);
  return cache;
}

/** What the domain-age lookup is built from (config.ts); tests and benchmarks may pass their own. */
export type DomainAgeSettings = Pick<Config, 'RDAP_BOOTSTRAP_URL' | 'RDAP_TIMEOUT_MS'>;

async function loadBootstrap(source: string | undefined): Promise<RdapBootstrap> {
  if (source && /^https?:\/\//i.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(BOOTSTRAP_FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`RDAP bootstrap ${source}: HTTP ${res.status}`);
    return parseRdapBootstrap(await res.json());
  }
  const path = source || join(dataRoot(), RDAP_BOOTSTRAP_PATH);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    // A layer built before the bootstrap existed: every domain age is unknown, signups still work.
    if (!source && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      logger.warn('no RDAP bootstrap in the data layer; domain ages are unknown', { path });
      return EMPTY_RDAP_BOOTSTRAP;
    }
    throw error;
  }
  return parseRdapBootstrap(JSON.parse(text));
}

/** The bootstrap, read once per container; a failed read is tried again a minute later (sharedBootstrap). */
export function rdapBootstrap(
  settings: Pick<DomainAgeSettings, 'RDAP_BOOTSTRAP_URL'> = config(),
): Promise<RdapBootstrap> {
  bootstrap ??= sharedBootstrap(() => loadBootstrap(settings.RDAP_BOOTSTRAP_URL), { now });
  return bootstrap();
}

export function domainAgeLookup(settings: DomainAgeSettings = config()): DomainAgeLookup {
  lookup ??= createDomainAgeLookup({
    bootstrap: () => rdapBootstrap(settings),
    fetch: (url, init) => fetch(url, init),
    cache: domainAgeCache(),
    clock: { now },
    timeoutMs: settings.RDAP_TIMEOUT_MS,
    onError: (message, detail) => logger.warn(message, detail),
  });
  return lookup;
}

/** The ports of checkSignup (functions/lib/signup/check.ts). */
export async function signupDeps(): Promise<SignupCheckDeps> {
  const [email, ip] = await Promise.all([emailChecker(), ipLocator()]);
  return { email, ip, domainAge: domainAgeLookup() };
}

/** Drops the container's lookup and bootstrap so the next call reads the environment again (benchmarks). */
export function resetDomainAgeLookup(): void {
  lookup = undefined;
  bootstrap = undefined;
  resetConfig();
}

/**
 * Forgets the cache, lookup and bootstrap (the local stack calls it when it points at new endpoints):
 * a stack started later in the same process reads its environment, RDAP_BOOTSTRAP_URL included, again.
 */
export function resetSignupRuntime(): void {
  cache = undefined;
  resetDomainAgeLookup();
}
