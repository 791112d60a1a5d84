import { domainToASCII } from 'node:url';
import { hasValidPunycodeLabels } from '../dns/punycode-labels.js';
import { DOT, isValidAsciiDomain, isValidLocalPart, LDH, MAX_ADDRESS_OCTETS } from './address-shape.js';

// Address syntax (the reason `invalid_syntax`; docs/api.md: Email checks, "Syntax"): RFC 5321 length
// limits, an RFC 5322 dot-atom local part, and a real DNS domain. Written as character loops over
// lookup tables so a batch of thousands of addresses compiles no regular expression per address,
// and so that hostile input (megabyte strings, control characters) costs one linear pass at most.

/**
 * UTF-8 local parts are rejected. RFC 6531 (SMTPUTF8) allows them, but few mail servers accept
 * them and a non-ASCII local part is the usual carrier of look-alike characters (a Cyrillic "а"
 * in "pаypal"), so an address must have an ASCII local part to be `syntaxValid`. Internationalised
 * DOMAINS are accepted and converted to punycode (IDNA, via the WHATWG `domainToASCII`).
 */
export const UTF8_LOCAL_PART_RULE =
  'Local parts must be ASCII (RFC 5322 dot-atom); SMTPUTF8 (RFC 6531) local parts are rejected. ' +
  'Internationalised domains are accepted and converted to punycode.';

/**
 * Anything longer than this after trimming cannot be valid, so it is rejected before any parsing.
 * A submitted address can be longer than its ASCII form only through IDNA (an astral character is
 * two UTF-16 units and may encode as one punycode character; NFC folds combining sequences), and
 * never by more than about double.
 */
const MAX_INPUT_CHARS = MAX_ADDRESS_OCTETS * 2;

/** Control, format (soft hyphen, zero-width joiners), separator and unassigned/private characters. */
const INVISIBLE_OR_CONTROL = /[\p{C}\p{Z}]/u;

export interface ParsedAddress {
  /** The local part as submitted (case kept), already validated. */
  readonly localPart: string;
  /** The domain in lowercase ASCII (punycode for internationalised domains). */
  readonly domain: string;
}

function isAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The lowercase ASCII form of a submitted domain, or null when it is not a valid domain.
 * IP literals (`[192.0.2.1]`) are rejected: `[` is not a domain character. Non-ASCII domains go
 * through IDNA (`url.domainToASCII`) and the result is validated again; every `xn--` label, given
 * or produced, must be well-formed punycode (hasValidPunycodeLabels).
 */
export function toAsciiDomain(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_INPUT_CHARS) return null;
  if (isAscii(raw)) {
    const lower = raw.toLowerCase();
    if (!isValidAsciiDomain(lower)) return null;
    if (lower.includes('xn--') && !hasValidPunycodeLabels(lower)) return null;
    return lower;
  }
  // Reject ASCII characters IDNA would rewrite rather than refuse (domainToASCII percent-decodes,
  // "ex%41.com" becomes "exa.com"), and invisible or control characters it would silently drop.
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code >= 128 || code === DOT) continue;
    const lower = code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
    if (LDH[lower] !== 1) return null;
  }
  if (INVISIBLE_OR_CONTROL.test(raw)) return null;
  const ascii = domainToASCII(raw);
  return ascii !== '' && isValidAsciiDomain(ascii) && hasValidPunycodeLabels(ascii) ? ascii : null;
}

/**
 * Parses a submitted address: surrounding whitespace is trimmed for checking, then the address must
 * be `local@domain` with exactly one `@`. Returns null when the syntax is invalid.
 */
export function parseAddress(input: string): ParsedAddress | null {
  if (typeof input !== 'string') return null;
  // Cheap upper bound before trimming, so a megabyte of input is not copied: at most this many
  // characters of surrounding whitespace are tolerated.
  if (input.length > MAX_INPUT_CHARS * 4) return null;
  const trimmed = input.trim();
  if (trimmed.length > MAX_INPUT_CHARS) return null;
  const at = trimmed.indexOf('@');
  if (at <= 0 || at !== trimmed.lastIndexOf('@')) return null;
  const localPart = trimmed.slice(0, at);
  if (!isValidLocalPart(localPart)) return null;
  const domain = toAsciiDomain(trimmed.slice(at + 1));
  if (domain === null) return null;
  if (localPart.length + 1 + domain.length > MAX_ADDRESS_OCTETS) return null;
  return { localPart, domain };
}
