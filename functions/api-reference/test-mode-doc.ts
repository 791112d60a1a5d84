import { NEW_DOMAIN_DAYS } from '../lib/signup/score.js';
import { TEST_DOMAIN_AGES, TEST_EMAILS, TEST_NETWORKS } from '../lib/test-mode/tables.js';

// The documented answers of test keys (docs/test-mode.md and the API reference's "Test mode"
// section), as Markdown tables rendered from the tables test mode answers from: they cannot drift.

const flagNames = (flags: Record<string, boolean>): string =>
  Object.entries(flags)
    .filter(([, on]) => on)
    .map(([name]) => `\`${name}\``)
    .join(', ') || 'none';

/** The documentation ranges and what each answers. */
export function testNetworksTable(): string {
  const rows = TEST_NETWORKS.map((n) =>
    [
      `\`${n.prefix}\` (e.g. \`${n.examples[0]}\`)`,
      `${n.place.city}, ${n.place.region} (\`${n.place.regionCode}\`), ${n.place.country}; postal code ${n.place.postalCode}; ${n.place.latitude}, ${n.place.longitude} (±${n.place.accuracyRadiusKm} km); \`${n.place.timezone}\``,
      `AS${n.network.asn} ${n.network.asOrganization}`,
      flagNames(n.security),
    ].join(' | '),
  );
  return [
    '| Range | Place | Network | Security flags set |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}

/** The documented e-mail addresses and what each answers. */
export function testEmailsTable(): string {
  const rows = TEST_EMAILS.map((e) =>
    [
      `\`${e.email}\``,
      e.shows,
      `\`${e.mxStatus}\``,
      e.isDisposable ? 'yes' : 'no',
      e.didYouMean ? `\`${e.didYouMean}\`` : '—',
      `\`${e.verdict}\``,
      e.reasons.length ? e.reasons.map((r) => `\`${r}\``).join(', ') : '—',
    ].join(' | '),
  );
  return [
    '| Address | What it shows | `mx.status` | Disposable | `didYouMean` | Verdict | Reasons |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}

/** The documented domain ages of the signup check and the reason each gives. */
export function testDomainAgesTable(): string {
  const rows = TEST_DOMAIN_AGES.map((d) => {
    const r = d.registered;
    const age = 'on' in r ? `the days since ${r.on.slice(0, 10)}` : String(r.daysAgo);
    // A dated registration is decades old: never new.
    const isNew = 'daysAgo' in r && r.daysAgo < NEW_DOMAIN_DAYS;
    return [`\`${d.domain}\``, d.shows, age, isNew ? '`new_domain`' : '—'].join(' | ');
  });
  return [
    '| Domain (and its subdomains) | What it shows | `emailDomainAgeDays` | Signup reason |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}
