import { normaliseHostname } from '../dns/host-name.js';
import { registrableDomain } from './public-suffix.js';

// The MX-host table (docs/api.md: Email checks, "Disposable": the disposable data extended with mail
// servers seen serving listed domains; disposableSource `mx_host`). Temp-mail services rotate
// through fresh domains faster than the lists follow, but keep receiving on the same mail servers:
// a domain whose MX host is in this table is disposable too.
//
// The table is read-only data, the same for every account: the curated seeds below plus the hosts
// the data refresh promotes on its own DNS evidence (../refresh/mx-learn.ts). A check never adds
// to it (hardening, "Learned data must not cross accounts"): if a check that resolves a listed
// domain could teach its mail host, whoever controls one listed domain (a lapsed one, re-registered)
// could point it at a shared host and make every other account's domains on that host disposable.

/** Store port of the table. */
export interface MxHostTable {
  /** True when `host` or one of its parent domains is in the table (entries are host suffixes). */
  has(host: string): boolean;
}

/**
 * Seeds of the MX-host table: registrable domains of well-known disposable-mail services
 * themselves. Any mail server under one of them is run by that service, so a domain whose MX host
 * is e.g. `mail.mailinator.com` or `mx.guerrillamail.com` is disposable however new the domain is.
 * Only seeds that are on the merged disposable list are used (mxHostSeeds), so a stale seed cannot
 * flag a legitimate provider.
 */
export const MX_HOST_SEEDS: readonly string[] = [
  'mailinator.com',
  'guerrillamail.com',
  'yopmail.com',
  'mailnesia.com',
  'maildrop.cc',
  'dispostable.com',
  'trashmail.com',
  '10minutemail.com',
  'temp-mail.org',
  'getnada.com',
];

/** The seeds whose registrable domain is listed (the layer build and the data refresh both write these). */
export function mxHostSeeds(isListed: (domain: string) => boolean): string[] {
  return MX_HOST_SEEDS.filter((host) => {
    const registrable = registrableDomain(host);
    return registrable !== null && isListed(registrable);
  });
}

/** The table of one published data version: its `mx-hosts.txt` entries, fixed once built. */
export class InMemoryMxHostTable implements MxHostTable {
  private readonly entries: ReadonlySet<string>;

  constructor(entries: Iterable<string> = []) {
    this.entries = new Set([...entries].map(normaliseHostname).filter((host) => host.includes('.')));
  }

  has(host: string): boolean {
    if (this.entries.size === 0) return false;
    let name = normaliseHostname(host);
    // Walk the host's suffixes, stopping before the last label: a bare TLD is never an entry.
    for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.')) {
      if (this.entries.has(name)) return true;
      name = name.slice(dot + 1);
    }
    return false;
  }

  get size(): number {
    return this.entries.size;
  }
}
