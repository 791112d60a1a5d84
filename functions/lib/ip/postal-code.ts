// What a postal code served as `postalCode` may look like, whichever data it came from (a geofeed
// line, a GeoNames row): ASCII letters and digits, with spaces or hyphens inside, at most
// MAX_POSTAL_LENGTH characters. Every code of the GeoNames postal dump fits: the longest are French
// CEDEX codes ("75021 CEDEX 01", "78078 CITYSSIMO", 15 characters), and no code there holds any
// other character. Anything else (markup, quotes, control characters) is not a postal code and is
// never served.

export const MAX_POSTAL_LENGTH = 16;

const POSTAL = /^[A-Za-z0-9](?:[A-Za-z0-9 -]*[A-Za-z0-9])?$/;

/** Whether `text` (already trimmed) is a plausible postal code. */
export function isPostalCode(text: string): boolean {
  return text.length <= MAX_POSTAL_LENGTH && POSTAL.test(text);
}
