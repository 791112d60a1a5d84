import { TEST_EMAILS, TEST_NETWORKS } from '../lib/test-mode/tables.js';

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
