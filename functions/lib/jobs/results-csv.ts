import type { EmailCheckResult } from '../email/index.js';

// The job results file (spec: Job results file): one row per submitted row, in submission order,
// with these columns in this order; reasons joined by ";"; empty cell for null; mx_status empty
// for invalid syntax; RFC 4180 quoting and CRLF line ends.
// Spreadsheet safety: an INVALID address starting with =, +, - or @ gets a leading apostrophe
// (spec). A VALID address is written unchanged even when it starts with =, + or - (dot-atom
// allows them): it must stay usable as an address, and dot-atom excludes the parentheses,
// quotes, spaces and commas that formula payloads need.

export const RESULT_COLUMNS = [
  'email',
  'normalized_email',
  'verdict',
  'reasons',
  'syntax_valid',
  'is_disposable',
  'disposable_source',
  'is_free_provider',
  'is_role_account',
  'did_you_mean',
  'mx_status',
  'mx_host',
] as const;

const FORMULA_START = /^[=+\-@]/;

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function resultsHeader(): string {
  return `${RESULT_COLUMNS.join(',')}\r\n`;
}

export function resultLine(r: EmailCheckResult): string {
  const email = !r.syntaxValid && FORMULA_START.test(r.email) ? `'${r.email}` : r.email;
  const cells = [
    email,
    r.normalizedEmail ?? '',
    r.verdict,
    r.reasons.join(';'),
    String(r.syntaxValid),
    String(r.isDisposable),
    r.disposableSource ?? '',
    String(r.isFreeProvider),
    String(r.isRoleAccount),
    r.didYouMean ?? '',
    r.mx?.status ?? '',
    r.mx?.host ?? '',
  ];
  return `${cells.map(csvField).join(',')}\r\n`;
}
