// Privacy-relay aliases (the fields isRelayAlias and relayProvider; docs/api.md: Email checks,
// "Privacy-relay aliases"): addresses a forwarding service hands out in place of the user's own
// (Apple Hide My Email, Firefox Relay, DuckDuckGo Email Protection, SimpleLogin, addy.io, Proton
// Pass). They reach a real, long-lived mailbox, so a relay alias is never disposable and never a
// typo; whether it is acceptable is the account's policy (rules.ts, relayAliases). The domains come
// from the data layer's relays.txt (layers/build/email-relays.json).

/** The provider of the relay domain the domain is on, or null. An entry covers its subdomains
 *  (addy.io's `x@<username>.anonaddy.com`); the walk stops before the top-level label. */
export function relayProviderOf(domain: string, relays: ReadonlyMap<string, string>): string | null {
  if (relays.size === 0) return null;
  let name = domain;
  for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.')) {
    const provider = relays.get(name);
    if (provider !== undefined) return provider;
    name = name.slice(dot + 1);
  }
  return null;
}

/**
 * The entries of a relays.txt: `domain<TAB>provider` lines, `#` comment lines and blank lines
 * skipped; the domain lowercased, the provider name as written. A line without a provider is skipped.
 */
export function parseRelayList(text: string): Map<string, string> {
  const relays = new Map<string, string>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const tab = trimmed.indexOf('\t');
    if (tab <= 0) continue;
    const domain = trimmed.slice(0, tab).trim().toLowerCase();
    const provider = trimmed.slice(tab + 1).trim();
    if (domain !== '' && provider !== '') relays.set(domain, provider);
  }
  return relays;
}

/** The text of a relays.txt (parseRelayList reads it back), sorted by domain. */
export function formatRelayList(header: string, relays: Iterable<readonly [string, string]>): string {
  const lines = [...relays].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([d, p]) => `${d}\t${p}`);
  return `# ${header}\n${lines.join('\n')}\n`;
}
