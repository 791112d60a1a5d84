// The shape of an address that needs no table beyond ASCII: the RFC 5321 length limits, the RFC 5322
// dot-atom local part and an LDH domain. The API's syntax check (syntax.ts) is built on it, and the
// signup-form widget (clients/widget) bundles it to refuse a plainly invalid address without a
// request: the same rule on both sides, with no import so it stays a few hundred bytes in a browser.

/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
export const MAX_LOCAL_PART_OCTETS = 64;
/** RFC 5321 §4.5.3.1.3 path limit (256) minus the angle brackets: 254 octets. */
export const MAX_ADDRESS_OCTETS = 254;
/** RFC 1035 §2.3.4: a label is at most 63 octets. */
export const MAX_LABEL_OCTETS = 63;
/** RFC 1035 §2.3.4: a domain name is at most 253 octets in its dotted text form. */
export const MAX_DOMAIN_OCTETS = 253;

/** RFC 5322 §3.2.3 atext: ALPHA / DIGIT / "!#$%&'*+-/=?^_`{|}~". The dot is handled separately. */
const ATEXT = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~") {
  ATEXT[ch.charCodeAt(0)] = 1;
}

/** Letters, digits and hyphen (RFC 1123 §2.1 host names), lowercase only: domains are lowercased first. */
export const LDH = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyz0123456789-') LDH[ch.charCodeAt(0)] = 1;

export const DOT = 0x2e;
const HYPHEN = 0x2d;

/** True when `local` is an RFC 5322 dot-atom of at most 64 octets with ASCII characters only. */
export function isValidLocalPart(local: string): boolean {
  const length = local.length;
  // ASCII only (see UTF8_LOCAL_PART_RULE), so characters are octets here.
  if (length === 0 || length > MAX_LOCAL_PART_OCTETS) return false;
  let previousWasDot = true; // a leading dot is as invalid as a double dot
  for (let i = 0; i < length; i++) {
    const code = local.charCodeAt(i);
    if (code === DOT) {
      if (previousWasDot) return false;
      previousWasDot = true;
    } else if (code < 128 && ATEXT[code] === 1) {
      previousWasDot = false;
    } else {
      // Non-ASCII, control characters, space, and the specials ("(),:;<>@[\]) including the
      // quote that opens a quoted local part, which the API refuses (docs/api.md: Email checks, "Syntax").
      return false;
    }
  }
  return !previousWasDot; // no trailing dot
}

/**
 * Validates an ASCII, lowercase domain: at most 253 octets, at least two labels of 1 to 63 LDH
 * characters not starting or ending with a hyphen, and a top-level label that is not all digits
 * (which also rules out dotted IPv4 addresses).
 */
export function isValidAsciiDomain(domain: string): boolean {
  const length = domain.length;
  if (length === 0 || length > MAX_DOMAIN_OCTETS) return false;
  let labelStart = 0;
  let labels = 0;
  let labelAllDigits = true;
  for (let i = 0; i <= length; i++) {
    const code = i === length ? DOT : domain.charCodeAt(i);
    if (code === DOT) {
      const labelLength = i - labelStart;
      if (labelLength === 0 || labelLength > MAX_LABEL_OCTETS) return false;
      if (domain.charCodeAt(labelStart) === HYPHEN || domain.charCodeAt(i - 1) === HYPHEN) return false;
      labels++;
      if (i === length && labelAllDigits) return false; // numeric TLD
      labelStart = i + 1;
      labelAllDigits = true;
    } else if (code < 128 && LDH[code] === 1) {
      if (code < 0x30 || code > 0x39) labelAllDigits = false;
    } else {
      return false;
    }
  }
  return labels >= 2;
}

/**
 * True when `input` cannot be an address whatever IDNA makes of its domain: not one `@` between a
 * local part and a domain, a local part that is not an ASCII dot-atom of at most 64 octets, or an
 * ASCII domain that is not a valid LDH name. Internationalised domains are left to the API.
 */
export function isPlainlyInvalid(input: string): boolean {
  const trimmed = input.trim();
  const at = trimmed.indexOf('@');
  if (at <= 0 || at !== trimmed.lastIndexOf('@')) return true;
  if (!isValidLocalPart(trimmed.slice(0, at))) return true;
  const domain = trimmed.slice(at + 1).toLowerCase();
  for (let i = 0; i < domain.length; i++) if (domain.charCodeAt(i) > 0x7f) return false;
  return !isValidAsciiDomain(domain) || at + 1 + domain.length > MAX_ADDRESS_OCTETS;
}
