import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isValidLocalPart } from '../../functions/lib/email/address-shape.js';
import {
  type CommonProvidersFile,
  EMAIL_LIST_FILES,
  parseListText,
} from '../../functions/lib/email/lists.js';
import { mxHostSeeds } from '../../functions/lib/email/mx-hosts.js';
import { formatRelayList } from '../../functions/lib/email/relay.js';
import { toAsciiDomain } from '../../functions/lib/email/syntax.js';
import { DEFAULT_COMMON_PROVIDERS, DEFAULT_COMMON_TLDS } from '../../functions/lib/email/typo.js';

// Builds the email reference lists of the data layer from the installed npm packages only (runs on
// a fresh clone after `npm ci`): the three community disposable lists merged and minus the
// allowlist, the free-provider list, the role list, the typo references and the MX-host seeds; and
// from the project's own privacy-relay list kept beside this file (email-relays.json).

import type { ManifestEntry } from '../../functions/lib/data-manifest.js';

export type { ManifestEntry };

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));

/** The allowlist of disposable-email-domains (CC0), kept beside this file; see its header. */
const ALLOWLIST_FILE = join(HERE, 'email-allowlist.txt');
const ALLOWLIST_COMMIT = 'de9d20d740fb58c972e54f0a9fe1f2112a31ac00';

/** The project's own list of privacy-relay alias domains, each provider with its documentation. */
export const RELAYS_FILE = join(HERE, 'email-relays.json');
export const RELAYS_LICENCE = "project's own list, sources: provider documentation";

/** One provider of email-relays.json. */
export interface RelayProvider {
  provider: string;
  /** Alias domains; each covers its subdomains. Empty when the provider cannot be told by domain. */
  domains: string[];
  /** The provider's own documentation. */
  source: string;
  note: string;
}

/**
 * The relay domains of email-relays.json, domain -> provider (punycode, lowercase). The file is ours,
 * so anything wrong in it fails the build rather than being dropped: a field missing, a name that is
 * not a domain, a domain listed twice.
 */
export function relayDomains(providers: readonly RelayProvider[]): Map<string, string> {
  const relays = new Map<string, string>();
  for (const entry of providers) {
    const { provider, domains, source, note } = entry ?? ({} as RelayProvider);
    if (typeof provider !== 'string' || provider.trim() === '' || /[\t\r\n]/.test(provider)) {
      throw new Error(`email-relays.json: a provider without a name: ${JSON.stringify(entry)}`);
    }
    if (!Array.isArray(domains) || typeof source !== 'string' || !/^https:\/\//.test(source)) {
      throw new Error(`email-relays.json: ${provider} needs domains and an https source`);
    }
    if (typeof note !== 'string') throw new Error(`email-relays.json: ${provider} needs a note`);
    for (const raw of domains) {
      const domain = typeof raw === 'string' ? toAsciiDomain(raw.trim()) : null;
      if (domain === null) throw new Error(`email-relays.json: ${provider}: ${String(raw)} is not a domain`);
      const other = relays.get(domain);
      if (other !== undefined)
        throw new Error(`email-relays.json: ${domain} is listed twice (${other}, ${provider})`);
      relays.set(domain, provider.trim());
    }
  }
  return relays;
}

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

async function packageVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(packageDir(name), 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/** Valid domains in lowercase ASCII (IDN entries converted to punycode), invalid lines dropped. */
function domainsOf(entries: Iterable<string>): Set<string> {
  const domains = new Set<string>();
  for (const entry of entries) {
    const domain = toAsciiDomain(entry.trim());
    if (domain !== null) domains.add(domain);
  }
  return domains;
}

function listFile(header: string, entries: Iterable<string>): string {
  return `# ${header}\n${[...entries].sort().join('\n')}\n`;
}

/**
 * Writes the email lists into `outDir` (the data layer's `email/` directory, see emailDataDir) and
 * returns one manifest entry per upstream source.
 */
export async function buildEmailLists(outDir: string): Promise<ManifestEntry[]> {
  const [dedVersion, burnerVersion, fakefilterVersion, providersVersion, roleVersion] = await Promise.all(
    [
      'disposable-email-domains-js',
      'burner-email-providers',
      'fakefilter',
      'email-providers',
      'role-based-email-addresses',
    ].map(packageVersion),
  );

  // disposable-email-domains (CC0), repackaged weekly as disposable-email-domains-js.
  const ded = domainsOf(
    JSON.parse(
      await readFile(
        join(packageDir('disposable-email-domains-js'), 'dist/dict/disposable_email_blocklist.json'),
        'utf8',
      ),
    ) as string[],
  );
  // wesbos/burner-email-providers (MIT).
  const burner = domainsOf(
    parseListText(await readFile(join(packageDir('burner-email-providers'), 'emails.txt'), 'utf8')),
  );
  // 7c/fakefilter (BSD-3-Clause): the keys of `domains` in its v1 JSON.
  const fakefilterJson = JSON.parse(
    await readFile(join(packageDir('fakefilter'), 'json/data.json'), 'utf8'),
  ) as { domains: Record<string, unknown> };
  const fakefilter = domainsOf(Object.keys(fakefilterJson.domains));
  const allowlist = domainsOf(parseListText(await readFile(ALLOWLIST_FILE, 'utf8')));

  const disposable = new Set<string>();
  for (const list of [ded, burner, fakefilter]) {
    for (const domain of list) if (!allowlist.has(domain)) disposable.add(domain);
  }

  // email-providers (ISC) all.json also carries disposable and typo-squatting domains; a domain on
  // the disposable union is not counted as a consumer mailbox provider.
  const allProviders = domainsOf(
    JSON.parse(await readFile(join(packageDir('email-providers'), 'all.json'), 'utf8')) as string[],
  );
  const free = [...allProviders].filter((domain) => !disposable.has(domain));

  // role-based-email-addresses (MIT): a CommonJS array of local parts.
  const roleSource = require('role-based-email-addresses') as string[];
  const role = new Set(
    roleSource.map((entry) => entry.trim().toLowerCase()).filter((entry) => isValidLocalPart(entry)),
  );

  // The seeds only (functions/lib/email/mx-hosts.ts): the data refresh adds hosts on its own evidence.
  const mxHosts = mxHostSeeds((domain) => disposable.has(domain));

  // The project's own privacy-relay list (functions/lib/email/relay.ts).
  const relaysText = await readFile(RELAYS_FILE, 'utf8');
  const relayProviders = JSON.parse(relaysText) as RelayProvider[];
  const relays = relayDomains(relayProviders);

  const commonProviders: CommonProvidersFile = {
    providers: [...DEFAULT_COMMON_PROVIDERS],
    tlds: [...DEFAULT_COMMON_TLDS],
  };

  await mkdir(outDir, { recursive: true });
  await Promise.all([
    writeFile(
      join(outDir, EMAIL_LIST_FILES.disposable),
      listFile(
        'Disposable domains: disposable-email-domains + burner-email-providers + fakefilter, minus allowlist',
        disposable,
      ),
    ),
    writeFile(
      join(outDir, EMAIL_LIST_FILES.allowlist),
      listFile('Allowlist of disposable-email-domains (CC0), never disposable', allowlist),
    ),
    writeFile(
      join(outDir, EMAIL_LIST_FILES.free),
      listFile('Consumer mailbox providers: email-providers all.json minus disposable domains', free),
    ),
    writeFile(
      join(outDir, EMAIL_LIST_FILES.role),
      listFile('Role local parts: role-based-email-addresses', role),
    ),
    writeFile(
      join(outDir, EMAIL_LIST_FILES.mxHosts),
      listFile(
        'Mail-server host suffixes of disposable services (seeds, see functions/lib/email/mx-hosts.ts)',
        mxHosts,
      ),
    ),
    writeFile(join(outDir, EMAIL_LIST_FILES.commonProviders), `${JSON.stringify(commonProviders)}\n`),
    writeFile(
      join(outDir, EMAIL_LIST_FILES.relays),
      formatRelayList(
        "Privacy-relay alias domains and their provider, tab-separated: the project's own list (layers/build/email-relays.json)",
        relays,
      ),
    ),
  ]);

  return [
    {
      name: 'disposable-email-domains-js',
      version: dedVersion!,
      licence: 'CC0-1.0',
      source:
        'https://github.com/disposable-email-domains/disposable-email-domains (npm disposable-email-domains-js)',
      count: ded.size,
    },
    {
      name: 'burner-email-providers',
      version: burnerVersion!,
      licence: 'MIT',
      source: 'https://github.com/wesbos/burner-email-providers (npm burner-email-providers)',
      count: burner.size,
    },
    {
      name: 'fakefilter',
      version: fakefilterVersion!,
      licence: 'BSD-3-Clause',
      source: 'https://github.com/7c/fakefilter (npm fakefilter)',
      count: fakefilter.size,
    },
    {
      name: 'disposable-email-domains allowlist',
      version: ALLOWLIST_COMMIT,
      licence: 'CC0-1.0',
      source: `https://github.com/disposable-email-domains/disposable-email-domains/blob/${ALLOWLIST_COMMIT}/allowlist.conf`,
      count: allowlist.size,
    },
    {
      name: 'email-providers',
      version: providersVersion!,
      licence: 'ISC',
      source: 'https://github.com/derhuerst/email-providers (npm email-providers, all.json)',
      count: free.length,
    },
    {
      name: 'role-based-email-addresses',
      version: roleVersion!,
      licence: 'MIT',
      source: 'https://github.com/mixmaxhq/role-based-email-addresses (npm role-based-email-addresses)',
      count: role.size,
    },
    {
      name: 'privacy-relay domains',
      // The list is versioned with the repository: its content hash names the version.
      version: createHash('sha256').update(relaysText).digest('hex').slice(0, 12),
      licence: RELAYS_LICENCE,
      source: 'layers/build/email-relays.json',
      count: relays.size,
      note: `Sources: ${relayProviders.map((p) => `${p.provider} ${p.source}`).join('; ')}`,
    },
  ];
}
