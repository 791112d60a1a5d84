import { normaliseHostname } from '../dns/host-name.js';
import { registrableDomain } from './public-suffix.js';

// The MX-host table (spec: disposable data "extended with mail servers seen serving listed
// domains"; disposableSource `mx_host`). Temp-mail services rotate through fresh domains faster
// than the lists follow, but keep receiving on the same mail servers: a domain whose MX host is in
// this table is disposable too.

/**
 * Store port of the table. The in-memory implementation below lives per container; a shared store
 * (a table, a file in S3) can implement the same two methods.
 */
export interface MxHostTable {
  /** True when `host` or one of its parent domains is in the table (entries are host suffixes). */
  has(host: string): boolean;
  add(host: string): void;
}

/**
 * Registrable domains of multi-tenant mail hosting, filtering and forwarding services (mailbox
 * providers, registrars' default forwarders, web hosts, spam filters). A listed disposable domain
 * that receives mail through one of them (Google Workspace, Microsoft 365, Cloudflare Email
 * Routing, ImprovMX, ...) says nothing about the thousands of ordinary domains sharing those
 * servers, so their hosts are never learned. Free-provider domains are excluded as well (see
 * learnMxHost). Extend this set when a shared host is found learned.
 */
export const SHARED_MAIL_HOST_DOMAINS: ReadonlySet<string> = new Set([
  '1and1.com',
  'amazonaws.com',
  'amazonses.com',
  'antispamcloud.com',
  'apple.com',
  'arsmtp.com',
  'barracudanetworks.com',
  'bluehost.com',
  'cloudflare.net',
  'dreamhost.com',
  'emailsrvr.com',
  'forwardemail.net',
  'gandi.net',
  'gmx.net',
  'google.com',
  'googlemail.com',
  'hostgator.com',
  'hostinger.com',
  'hover.com',
  'icloud.com',
  'improvmx.com',
  'infomaniak.ch',
  'ionos.de',
  'kundenserver.de',
  'mail.ru',
  'mailbox.org',
  'mailchannels.net',
  'mailgun.org',
  'mailspamprotection.com',
  'messagingengine.com',
  'migadu.com',
  'mimecast.com',
  'one.com',
  'outlook.com',
  'ovh.net',
  'porkbun.com',
  'pphosted.com',
  'privateemail.com',
  'protonmail.ch',
  'qq.com',
  'registrar-servers.com',
  'rzone.de',
  'secureserver.net',
  'sendgrid.net',
  'spamexperts.com',
  'titan.email',
  'tutanota.de',
  'web.de',
  'websitewelcome.com',
  'yahoodns.net',
  'yandex.net',
  'your-server.de',
  'zoho.com',
  'zoho.eu',
]);

/** Default bound on learned hosts; seeds do not count against it. */
export const DEFAULT_MAX_LEARNED_HOSTS = 50_000;

/** Per-container table: seeds from `mx-hosts.txt`, plus hosts learned since the container started. */
export class InMemoryMxHostTable implements MxHostTable {
  private readonly seeds: Set<string>;
  private readonly learned = new Set<string>();

  constructor(
    seeds: Iterable<string> = [],
    private readonly maxLearned = DEFAULT_MAX_LEARNED_HOSTS,
  ) {
    this.seeds = new Set([...seeds].map(normaliseHostname).filter((host) => host.includes('.')));
  }

  has(host: string): boolean {
    if (this.seeds.size === 0 && this.learned.size === 0) return false;
    let name = normaliseHostname(host);
    // Walk the host's suffixes, stopping before the last label: a bare TLD is never an entry.
    for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.')) {
      if (this.seeds.has(name) || this.learned.has(name)) return true;
      name = name.slice(dot + 1);
    }
    return false;
  }

  add(host: string): void {
    const name = normaliseHostname(host);
    if (!name.includes('.') || this.seeds.has(name) || this.learned.has(name)) return;
    if (this.learned.size >= this.maxLearned) {
      // Oldest first: a Set iterates in insertion order.
      const oldest = this.learned.values().next().value;
      if (oldest !== undefined) this.learned.delete(oldest);
    }
    this.learned.add(name);
  }

  get size(): number {
    return this.seeds.size + this.learned.size;
  }
}

export interface LearnContext {
  /** Whether a domain is itself on the disposable list (after the allowlist). */
  isListed(domain: string): boolean;
  /** Whether a domain is a consumer mailbox provider (its servers are shared by definition). */
  isFreeProvider(domain: string): boolean;
}

/**
 * Records the lowest-preference MX host of a LISTED disposable domain. The host's registrable
 * domain is recorded too when that domain is itself listed (mx.guerrillamail.com serving
 * sharklasers.com teaches `guerrillamail.com`). Hosts of shared mail services and of free
 * providers are never learned. Returns whether anything was added.
 */
export function learnMxHost(table: MxHostTable, host: string, context: LearnContext): boolean {
  const name = normaliseHostname(host);
  const registrable = registrableDomain(name);
  if (registrable === null) return false;
  if (SHARED_MAIL_HOST_DOMAINS.has(registrable) || context.isFreeProvider(registrable)) return false;
  if (table.has(name)) return false;
  table.add(name);
  if (context.isListed(registrable)) table.add(registrable);
  return true;
}
