import { fileURLToPath } from 'node:url';
import type { DnsLookup, MxRecord, MxResolver } from '../../../../functions/lib/dns/mx-resolver.js';
import { type EmailLists, loadEmailLists } from '../../../../functions/lib/email/lists.js';

// A fake of the DNS PORT (not of our code): answers from a zone table, records every query.

type Answer<T> = readonly T[] | 'nxdomain' | 'nodata' | 'failure' | 'hang';

export interface ZoneEntry {
  mx?: Answer<MxRecord>;
  a?: Answer<string>;
  aaaa?: Answer<string>;
}

export const FIXTURE_DIR = fileURLToPath(new URL('../../../fixtures/email', import.meta.url));

export function fixtureLists(): Promise<EmailLists> {
  return loadEmailLists(FIXTURE_DIR);
}

/** Record types absent from an entry answer NODATA; unknown domains have `mx.<domain>` at preference 10. */
export class ZoneResolver implements MxResolver {
  readonly queries: string[] = [];

  constructor(private readonly zones: Readonly<Record<string, ZoneEntry>> = {}) {}

  resolveMx(domain: string): Promise<DnsLookup<MxRecord>> {
    return this.answer('MX', domain, (entry) => entry.mx, [{ exchange: `mx.${domain}`, priority: 10 }]);
  }

  resolveA(domain: string): Promise<DnsLookup<string>> {
    return this.answer('A', domain, (entry) => entry.a, ['192.0.2.1']);
  }

  resolveAaaa(domain: string): Promise<DnsLookup<string>> {
    return this.answer('AAAA', domain, (entry) => entry.aaaa, 'nodata');
  }

  count(type: string, domain: string): number {
    return this.queries.filter((query) => query === `${type} ${domain}`).length;
  }

  private answer<T>(
    type: string,
    domain: string,
    pick: (entry: ZoneEntry) => Answer<T> | undefined,
    unknownDomain: Answer<T>,
  ): Promise<DnsLookup<T>> {
    this.queries.push(`${type} ${domain}`);
    const entry = this.zones[domain];
    const answer = entry === undefined ? unknownDomain : (pick(entry) ?? 'nodata');
    if (answer === 'hang') return new Promise(() => {});
    if (typeof answer === 'string') return Promise.resolve({ kind: answer } as DnsLookup<T>);
    return Promise.resolve({ kind: 'records', records: answer });
  }
}
