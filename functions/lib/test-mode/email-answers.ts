// The e-mail answers of test mode (docs/test-mode.md): the live checker's own code and the account's
// rules over small fixed lists (tables.ts), with fixed mail servers instead of DNS, so every answer is the
// same on every call and no DNS server is ever asked. Every domain has a mail server
// `mx.<domain>`, except the reserved names (RFC 2606, RFC 6761: .test, .example, .invalid,
// .localhost), which do not exist; the documented addresses of tables.ts get the mail-server answer
// (or the list entry) they are named for. The domain-age lookup of the signup check is fixed too:
// the documented domains of tables.ts (their subdomains too, by the live rule's registered domain),
// every other domain unknown.
import type { MxRecord, MxResolver } from '../dns/mx-resolver.js';
import { createEmailChecker, type EmailChecker } from '../email/check.js';
import { createEmailLists, type EmailLists } from '../email/lists.js';
import { registrableDomain } from '../email/public-suffix.js';
import type { CompiledEmailRules } from '../email/rules.js';
import type { EmailCheckResult } from '../email/schema.js';
import type { DomainAgeLookup } from '../signup/domain-age.js';
import { TEST_DOMAIN_AGES, TEST_EMAIL_ANSWERS, TEST_EMAIL_LISTS, type TestMailServer } from './tables.js';

type Answer = Exclude<TestMailServer, 'disposable'>;

/** A resolver that answers every name alike, never over the network. */
function fixedResolver(answer: Answer): MxResolver {
  const none = { kind: 'nodata' } as const;
  const mx = (domain: string): MxRecord[] =>
    answer === 'null_mx' ? [{ exchange: '', priority: 0 }] : [{ exchange: `mx.${domain}`, priority: 10 }];
  const lookup =
    <T>(records: (domain: string) => T[]) =>
    async (domain: string) => {
      if (answer === 'no_domain' || RESERVED.test(domain)) return { kind: 'nxdomain' } as const;
      if (answer === 'unknown') return { kind: 'failure', code: 'ETIMEOUT' } as const;
      if (answer === 'none') return none;
      return { kind: 'records', records: records(domain) } as const;
    };
  // Implicit MX (RFC 5321 section 5.1): no MX records, and the domain's own address (a documentation
  // address, RFC 5737) takes the mail.
  if (answer === 'implicit') {
    return {
      resolveMx: async () => none,
      resolveA: lookup(() => ['192.0.2.25']),
      resolveAaaa: async () => none,
    };
  }
  return {
    resolveMx: lookup(mx),
    resolveA: async () => none,
    resolveAaaa: async () => none,
  };
}

const RESERVED = /(^|\.)(test|example|invalid|localhost)\.?$/i;

/** The documented address an e-mail is (trimmed, case-insensitive), if any. */
function documented(email: unknown): TestMailServer | undefined {
  return typeof email === 'string' ? TEST_EMAIL_ANSWERS.get(email.trim().toLowerCase()) : undefined;
}

/** The fixed lists of test mode (tables.ts). */
export function testEmailLists(): EmailLists {
  return createEmailLists(TEST_EMAIL_LISTS);
}

export function createTestEmailChecker(lists: EmailLists = testEmailLists()): EmailChecker {
  const checkers = new Map<TestMailServer, EmailChecker>();
  /** One checker per kind of answer, made on first use. */
  const checkerFor = (kind: TestMailServer): EmailChecker => {
    let checker = checkers.get(kind);
    if (!checker) {
      checker =
        kind === 'disposable'
          ? // The documented disposable address: its domain on the disposable list, for this checker only.
            createEmailChecker({
              lists: { ...lists, disposable: new Set([...lists.disposable, 'example.com']) },
              resolver: fixedResolver('found'),
            })
          : createEmailChecker({ lists, resolver: fixedResolver(kind) });
      checkers.set(kind, checker);
    }
    return checker;
  };
  const base = checkerFor('found');

  return {
    get mxHosts() {
      return base.mxHosts;
    },
    isFreeProvider: (domain) => base.isFreeProvider(domain),
    check(email: string, rules?: CompiledEmailRules): Promise<EmailCheckResult> {
      return checkerFor(documented(email) ?? 'found').check(email, rules);
    },
    async checkMany(emails: readonly string[], rules?: CompiledEmailRules): Promise<EmailCheckResult[]> {
      // The plain addresses in one call of the base checker, the documented ones each by their own.
      const plain = emails.map((e, i) => [e, i] as const).filter(([e]) => documented(e) === undefined);
      const results = new Array<EmailCheckResult>(emails.length);
      const checked = await base.checkMany(
        plain.map(([e]) => e),
        rules,
      );
      plain.forEach(([, i], k) => {
        results[i] = checked[k]!;
      });
      await Promise.all(
        emails.map(async (e, i) => {
          const kind = documented(e);
          if (kind !== undefined) results[i] = await checkerFor(kind).check(e, rules);
        }),
      );
      return results;
    },
  };
}

const DAY_MS = 86_400_000;
const AGES = new Map(TEST_DOMAIN_AGES.map((d) => [d.domain, d.registered]));

/**
 * Domain ages in test mode: fixed (tables.ts), never an RDAP query. Asked, as live
 * (signup/domain-age.ts), about the registered domain: `mail.example.com` has example.com's age.
 */
export function createTestDomainAgeLookup(now: () => Date): DomainAgeLookup {
  return {
    async ageDays(domain: string) {
      const registered = AGES.get(registrableDomain(domain) ?? '');
      if (registered === undefined) return null;
      if ('daysAgo' in registered) return registered.daysAgo;
      // Whole days, as live (signup/domain-age.ts ageInDays).
      return Math.max(0, Math.floor((now().getTime() - Date.parse(registered.on)) / DAY_MS));
    },
  };
}
