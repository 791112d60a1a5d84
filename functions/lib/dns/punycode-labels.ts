import punycode from 'punycode/punycode.js';

// IDNA A-labels checked the same way on every Node version: e-mail domains (email/syntax.ts) and
// custom hostnames (custom-hostnames/validate-hostname.ts).

function isAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Whether every `xn--` label of an ASCII domain is well-formed punycode (RFC 3492, RFC 5891 §5.4):
 * it decodes, to lowercase NFC text with at least one non-ASCII character, that encodes back to
 * the same label. Checked with the `punycode` package pinned in the lock file rather than Node's
 * URL parser, whose answer changed between Node versions (`xn--zz` is refused by Node 20 and 22,
 * accepted by Node 24): a verdict must not depend on the runtime.
 */
export function hasValidPunycodeLabels(domain: string): boolean {
  for (const label of domain.split('.')) {
    if (!label.startsWith('xn--')) continue;
    let decoded: string;
    try {
      decoded = punycode.decode(label.slice(4));
    } catch {
      return false;
    }
    if (decoded === '' || isAscii(decoded)) return false;
    if (decoded !== decoded.normalize('NFC') || decoded !== decoded.toLowerCase()) return false;
    if (punycode.encode(decoded) !== label.slice(4)) return false;
  }
  return true;
}
