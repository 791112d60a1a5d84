import type { ParsedAddress } from './syntax.js';

// Normalisation (the fields normalizedEmail and canonicalEmail).

/** The large consumer provider whose local parts ignore dots, and its alternate domain. */
export const GMAIL_DOMAIN = 'gmail.com';
export const GMAIL_ALTERNATE_DOMAIN = 'googlemail.com';

/** The local part with any `+tag` removed. A local part that starts with `+` keeps it (nothing would remain). */
export function stripPlusTag(localPart: string): string {
  const plus = localPart.indexOf('+');
  return plus > 0 ? localPart.slice(0, plus) : localPart;
}

/** Trimmed (by parsing), lowercased, domain in punycode. */
export function normalizedEmail(address: ParsedAddress): string {
  return address.localPart.toLowerCase() + '@' + address.domain;
}

/**
 * normalizedEmail with any +tag removed; for Gmail also without dots in the local part and with
 * googlemail.com mapped to gmail.com (Google delivers all of these to one mailbox).
 */
export function canonicalEmail(address: ParsedAddress): string {
  let local = stripPlusTag(address.localPart.toLowerCase());
  let domain = address.domain;
  if (domain === GMAIL_ALTERNATE_DOMAIN) domain = GMAIL_DOMAIN;
  if (domain === GMAIL_DOMAIN) {
    const undotted = local.replaceAll('.', '');
    if (undotted.length > 0) local = undotted;
  }
  return local + '@' + domain;
}
