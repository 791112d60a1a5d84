// Parses the CloudFront viewer geolocation headers (Amazon CloudFront Developer Guide, "Add CloudFront
// request headers": CloudFront-Viewer-Address, -ASN, -Country, -Country-Region, -Country-Region-Name,
// -City, -Postal-Code, -Latitude, -Longitude, -Time-Zone). GET /v1/geo prefers them over the DB-IP file
// (the visitor route is backed by a different database than the lookup routes; docs/api.md: IP lookup and
// visitor geolocation).
// The values are untrusted text: each is validated and dropped when malformed. Header names are
// matched case-insensitively. City names may arrive percent-encoded or as UTF-8 bytes read as
// Latin-1 (how Node decodes raw header bytes); both are repaired.

export interface EdgeLocation {
  /** Viewer IP from CloudFront-Viewer-Address (port removed), when present and well-formed text. */
  ip: string | null;
  country: string | null;
  /** Full ISO 3166-2 code, e.g. "US-WA" (CloudFront sends the suffix "WA"). */
  regionCode: string | null;
  regionName: string | null;
  city: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  timezone: string | null;
  asn: number | null;
}

const PREFIX = 'cloudfront-viewer-';
const MAX_TEXT = 200;
const validZones = new Map<string, boolean>();

function isTimezone(zone: string): boolean {
  let ok = validZones.get(zone);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      ok = /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone);
    } catch {
      ok = false;
    }
    if (validZones.size > 1000) validZones.clear();
    validZones.set(zone, ok);
  }
  return ok;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Every code unit fits in a byte (text that may be raw header bytes read as Latin-1). */
function isByteString(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

/** C0 controls and DEL: never part of a place name, and a sign of header injection. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Undoes percent-encoding and UTF-8-read-as-Latin-1; returns the text unchanged when neither applies. */
export function repairHeaderText(value: string): string {
  let text = value;
  if (/%[0-9A-Fa-f]{2}/.test(text)) {
    try {
      text = decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      // not valid percent-encoding: keep as is
    }
  }
  // "MÃ¼nchen" → "München": only when every code unit is a byte and the bytes are valid UTF-8.
  if (/[\u00c2-\u00f4][\u0080-\u00bf]/.test(text) && isByteString(text)) {
    try {
      text = utf8.decode(Uint8Array.from(text, (c) => c.charCodeAt(0)));
    } catch {
      // not UTF-8: keep as is
    }
  }
  return text;
}

function clean(value: string | undefined): string | null {
  if (value === undefined) return null;
  const text = repairHeaderText(value).trim();
  // Control characters never belong in a place name.
  if (text === '' || text.length > MAX_TEXT || hasControlCharacter(text)) return null;
  return text;
}

function coordinate(value: string | undefined, limit: number): number | null {
  const text = value?.trim();
  if (!text || !/^[+-]?\d{1,3}(\.\d+)?$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) && Math.abs(n) <= limit ? n : null;
}

/** "198.51.100.10:46532", "2001:db8::1:46532" or "[2001:db8::1]:46532" → the address text. */
function addressOf(value: string | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return bracketed[1] as string;
  const colon = text.lastIndexOf(':');
  if (colon < 0) return text;
  if (text.indexOf(':') === colon) return text.slice(0, colon); // IPv4 with port
  return /:\d{1,5}$/.test(text) ? text.slice(0, colon) : text;
}

/** Extracts the viewer location from request headers (any letter case). Absent or malformed fields are null. */
export function parseCloudFrontViewerHeaders(headers: Record<string, string | undefined>): EdgeLocation {
  const h = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value !== undefined && key.startsWith(PREFIX)) h.set(key.slice(PREFIX.length), value);
  }
  const countryText = h.get('country')?.trim().toUpperCase();
  const country = countryText && /^[A-Z]{2}$/.test(countryText) && countryText !== 'XX' ? countryText : null;
  const regionText = h.get('country-region')?.trim().toUpperCase();
  const regionCode =
    country && regionText && /^[A-Z0-9]{1,3}$/.test(regionText) ? `${country}-${regionText}` : null;
  const zone = h.get('time-zone')?.trim();
  const asnText = h.get('asn')?.trim();
  const asn = asnText && /^\d{1,10}$/.test(asnText) && Number(asnText) <= 0xffffffff ? Number(asnText) : null;
  return {
    ip: addressOf(h.get('address')),
    country,
    regionCode,
    regionName: regionCode ? clean(h.get('country-region-name')) : null,
    city: clean(h.get('city')),
    postalCode: clean(h.get('postal-code')),
    latitude: coordinate(h.get('latitude'), 90),
    longitude: coordinate(h.get('longitude'), 180),
    timezone: zone && isTimezone(zone) ? zone : null,
    asn: asn && asn > 0 ? asn : null,
  };
}
