// Logs never hold an API key in full (docs/operations.md: Logs): a key is shown as its type prefix and its last
// four characters, `ni_sec_…a1b2`, enough to tell which of an account's keys was used without
// letting anyone who reads the logs call the API with it.

// Test keys' prefixes first: they are longer, and `ni_pub_` is not one of theirs.
const KEY_PREFIXES = ['ni_test_pub_', 'ni_test_sec_', 'ni_pub_', 'ni_sec_'] as const;

/** The API key format (accounts/api-key.ts), anywhere in a text. */
const KEY_IN_TEXT = /ni_(?:test_)?(?:pub|sec)_[A-Za-z0-9_-]{32}/g;

/**
 * Shorter values show nothing but the ellipsis. From this length on (and beyond the prefix, the four
 * characters and five more) the last four characters are shown and at least five stay hidden, so the
 * masked text can never contain the value it hides.
 */
const SHOW_TAIL_FROM = 16;

/** A value sent as an API key, masked: its known prefix, an ellipsis and its last four characters. */
export function maskKey(value: string): string {
  const prefix = KEY_PREFIXES.find((p) => value.startsWith(p)) ?? '';
  if (value.length < Math.max(SHOW_TAIL_FROM, prefix.length + 9))
    return `${value.length > prefix.length + 4 ? prefix : ''}…`;
  return `${prefix}…${value.slice(-4)}`;
}

/** An Authorization header value, masked: the scheme stays readable (`Bearer ni_sec_…a1b2`). */
export function maskAuthorization(value: string): string {
  const m = /^(\s*[A-Za-z][A-Za-z0-9._~+/-]*)(\s+)(.*)$/s.exec(value);
  return m ? `${m[1]}${m[2]}${maskKey(m[3]!)}` : maskKey(value);
}

/** A request target (`/v1/geo?key=…&include=hostname`) with each `key` query value masked. */
export function maskKeyParams(target: string): string {
  const q = target.indexOf('?');
  if (q === -1) return target;
  const query = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      if (eq === -1 || safeDecode(name) !== 'key') return pair;
      // The ellipsis stays readable; what is left of the value is encoded as sent.
      const masked = encodeURIComponent(maskKey(safeDecode(pair.slice(eq + 1))));
      return `${name}=${masked.replaceAll('%E2%80%A6', '…')}`;
    })
    .join('&');
  return `${target.slice(0, q)}?${query}`;
}

/** Every well-formed API key in a text, masked: the last guard before a log line is written. */
export function scrubKeys(text: string): string {
  return text.replace(KEY_IN_TEXT, maskKey);
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}
