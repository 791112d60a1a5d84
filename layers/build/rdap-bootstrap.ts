import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManifestEntry } from '../../functions/lib/data-manifest.js';
import {
  IANA_RDAP_DNS_BOOTSTRAP_URL,
  parseRdapBootstrap,
  RDAP_BOOTSTRAP_PATH,
  RdapBootstrapFileSchema,
} from '../../functions/lib/signup/domain-age.js';

// The RDAP part of the data layer: `<layer>/rdap/dns.json`, the IANA bootstrap file for DNS
// (RFC 9224) that the signup check's domain-age lookup reads (functions/lib/runtime/signup.ts).
// The build has no network, so it ships the curated snapshot kept beside this file,
// `rdap-dns.json`: the common TLDs' entries of https://data.iana.org/rdap/dns.json, unchanged in
// format (its `description` says so), which the data refresh can later replace with the full file.
// IANA registry data is public and free to reuse.

const HERE = dirname(fileURLToPath(import.meta.url));

/** The curated snapshot of the IANA file shipped with the source. */
export const RDAP_SNAPSHOT_FILE = join(HERE, 'rdap-dns.json');

/** Writes `${outDir}/rdap/dns.json` (outDir is the layer root) and returns its manifest entry. */
export async function buildRdapBootstrap(
  outDir: string,
  snapshot: string = RDAP_SNAPSHOT_FILE,
): Promise<ManifestEntry[]> {
  const text = await readFile(snapshot, 'utf8');
  const json: unknown = JSON.parse(text);
  const file = RdapBootstrapFileSchema.parse(json);
  const bootstrap = parseRdapBootstrap(file);
  if (bootstrap.size === 0) throw new Error(`${snapshot} lists no TLD`);
  const target = join(outDir, RDAP_BOOTSTRAP_PATH);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(file)}\n`);
  return [
    {
      name: 'iana-rdap-dns-bootstrap',
      version: file.publication ?? 'unknown',
      licence: 'public registry data (IANA)',
      source: IANA_RDAP_DNS_BOOTSTRAP_URL,
      count: bootstrap.size,
    },
  ];
}
