import type { EmailCheckResult } from '../email/index.js';

// The job results file (docs/api.md: Email list jobs, "Results"): one row per submitted row, in
// submission order, with these columns in this order; reasons joined by ";"; empty cell for null;
// mx_status empty for invalid syntax; RFC 4180 quoting and CRLF line ends. The columns added after
// the first twelve come last (is_relay_alias, relay_provider), so a reader that takes the columns by
// position keeps working.
// Spreadsheet safety (OWASP "CSV Injection"): a spreadsheet runs a cell starting with =, +, - or @
// as a formula, and a leading tab or carriage return can hide such a start, so EVERY cell starting
// with one of those six characters gets a leading apostrophe, which spreadsheets read as "this is
// text". It is applied to every column, not only to invalid addresses, because valid addresses
// (dot-atom allows = + - and more: `=cmd|'/c'!a0@example.test` is valid), the normalized address
// and the typo suggestion built from it, and the MX host from third-party DNS can all start with
// one. A program reading the file drops an apostrophe followed by one of them.

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
  'is_relay_alias',
  'relay_provider',
] as const;

/** The characters that must not start a cell (OWASP CSV Injection): = + - @ tab CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell value a spreadsheet will not evaluate: an apostrophe before a formula character. */
export function formulaSafe(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function resultsHeader(): string {
  return `${RESULT_COLUMNS.join(',')}\r\n`;
}

export function resultLine(r: EmailCheckResult): string {
  const cells = [
    r.email,
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
    String(r.isRelayAlias),
    r.relayProvider ?? '',
  ];
  return `${cells.map((cell) => csvField(formulaSafe(cell))).join(',')}\r\n`;
}
