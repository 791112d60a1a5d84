// Country groupings used by several enrichment groups, kept in one place.

/** The 27 EU member states (the UK left on 31 January 2020): the static table behind isEUCountry. */
export const EU_27: ReadonlySet<string> = new Set([
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
]);

/** EEA members outside the EU. */
export const EEA_NON_EU: ReadonlySet<string> = new Set(['IS', 'LI', 'NO']);

/**
 * Territories with their own ISO 3166-1 code that are part of the EU (Åland and the French outermost
 * regions, TFEU art. 349/355): EU law, the GDPR included, applies there although the code is not one
 * of the 27 member states.
 */
export const EU_TERRITORIES: ReadonlySet<string> = new Set(['AX', 'GF', 'GP', 'MQ', 'RE', 'YT', 'MF']);

export function isEU(country: string): boolean {
  return EU_27.has(country);
}

/** EU member state, EEA member, or a territory of the EU: where the GDPR applies. */
export function isGdprArea(country: string): boolean {
  return EU_27.has(country) || EEA_NON_EU.has(country) || EU_TERRITORIES.has(country);
}
