import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DynamoDomainAgeCache } from '../aws/domain-age-cache.js';
import { dynamo } from '../aws/dynamo-client.js';
import { tableName } from '../aws/resources.js';
import { dataRoot } from '../aws/services.js';
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
import { isTestPartition } from '../test-mode/mode.js';
import type { Config } from './config.js';
import { emailChecker } from './email.js';
import { ipLocator } from './ip.js';
import { part, type Services } from './services.js';
import { emailCheckerFor, testEmail } from './test-email.js';
import { type Caller, testIpLocator } from './test-locator.js';

// The instance's signup-check wiring: the email checker and IP locator of their own runtime modules,
// and the domain-age lookup with its RDAP bootstrap (read once) and its DynamoDB cache.
//   RDAP_BOOTSTRAP_URL  an http(s) URL or a file path of an IANA dns.json; default: the data layer's
//                       `${dataRoot()}/rdap/dns.json` (layers/build/rdap-bootstrap.ts)
//   RDAP_TIMEOUT_MS     the most one lookup waits for RDAP, bootstrap load included (default 1500)

const BOOTSTRAP_FETCH_TIMEOUT_MS = 5000;

export const domainAgeCache = /* @__PURE__ */ part(
  (s) => new DynamoDomainAgeCache(dynamo(s), tableName('Cache', s.config), s.now),
);

/** What the domain-age lookup is built from (config.ts). */
export type DomainAgeSettings = Pick<Config, 'RDAP_BOOTSTRAP_URL' | 'RDAP_TIMEOUT_MS'>;

async function loadBootstrap(s: Services, source: string | undefined): Promise<RdapBootstrap> {
  if (source && /^https?:\/\//i.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(BOOTSTRAP_FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`RDAP bootstrap ${source}: HTTP ${res.status}`);
    return parseRdapBootstrap(await res.json());
  }
  const path = source || join(dataRoot(s), RDAP_BOOTSTRAP_PATH);
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

/** The bootstrap, read once per instance; a failed read is tried again a minute later (sharedBootstrap). */
const rdapBootstrap = /* @__PURE__ */ part((s) => {
  const settings: Pick<DomainAgeSettings, 'RDAP_BOOTSTRAP_URL'> = s.config;
  return sharedBootstrap(() => loadBootstrap(s, settings.RDAP_BOOTSTRAP_URL), { now: s.now });
});

export const domainAgeLookup = /* @__PURE__ */ part((s): DomainAgeLookup => {
  const settings: DomainAgeSettings = s.config;
  return createDomainAgeLookup({
    bootstrap: () => rdapBootstrap(s)(),
    fetch: (url, init) => fetch(url, init),
    cache: domainAgeCache(s),
    clock: s.clock,
    timeoutMs: settings.RDAP_TIMEOUT_MS,
    onError: (message, detail) => logger.warn(message, detail),
  });
});

/**
 * The ports of checkSignup (functions/lib/signup/check.ts) for a caller: in test mode
 * (docs/test-mode.md) the test checker and locator and fixed domain ages, never DNS or RDAP.
 */
export async function signupDepsFor(s: Services, caller: Caller): Promise<SignupCheckDeps> {
  if (!isTestPartition(caller.accountId)) return signupDeps(s);
  const [email, ip, { createTestDomainAgeLookup }] = await Promise.all([
    emailCheckerFor(s, caller),
    testIpLocator(s),
    testEmail(s),
  ]);
  return { email, ip, domainAge: createTestDomainAgeLookup(s.now) };
}

/** The ports of checkSignup (functions/lib/signup/check.ts). */
export async function signupDeps(s: Services): Promise<SignupCheckDeps> {
  const [email, ip] = await Promise.all([emailChecker(s), ipLocator(s)]);
  return { email, ip, domainAge: domainAgeLookup(s) };
}
