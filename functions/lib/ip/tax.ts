// The tax group: the country's general consumption tax and its standard rate. A hint for showing
// prices, not a tax determination: reduced rates, thresholds, registration and place-of-supply rules
// are out of scope. Standard rates as published by the national tax authorities and summarised by the
// European Commission's "VAT rates applied in the Member States" (2025), including the 2025 changes:
// Estonia 24% from 1 July 2025, Romania 21% from 1 August 2025, Slovakia 23% from 1 January 2025,
// Finland 25.5% from 1 September 2024, Switzerland 8.1% from 1 January 2024, Singapore 9% from
// 1 January 2024, Israel 18% from 1 January 2025. Canada: the 5% federal GST only (provincial HST/PST
// vary). US: sales tax is set by states and localities, so no single rate.
import type { TaxInfo } from './schema.js';

type Row = readonly [type: NonNullable<TaxInfo['type']>, rate: number | null, name: string];

const TABLE: ReadonlyMap<string, Row> = new Map<string, Row>([
  ['AT', ['VAT', 20, 'USt']],
  ['BE', ['VAT', 21, 'BTW / TVA']],
  ['BG', ['VAT', 20, 'ДДС']],
  ['HR', ['VAT', 25, 'PDV']],
  ['CY', ['VAT', 19, 'ΦΠΑ']],
  ['CZ', ['VAT', 21, 'DPH']],
  ['DK', ['VAT', 25, 'moms']],
  ['EE', ['VAT', 24, 'käibemaks']],
  ['FI', ['VAT', 25.5, 'ALV']],
  ['FR', ['VAT', 20, 'TVA']],
  ['DE', ['VAT', 19, 'MwSt']],
  ['GR', ['VAT', 24, 'ΦΠΑ']],
  ['HU', ['VAT', 27, 'ÁFA']],
  ['IE', ['VAT', 23, 'VAT']],
  ['IT', ['VAT', 22, 'IVA']],
  ['LV', ['VAT', 21, 'PVN']],
  ['LT', ['VAT', 21, 'PVM']],
  ['LU', ['VAT', 17, 'TVA']],
  ['MT', ['VAT', 18, 'VAT']],
  ['NL', ['VAT', 21, 'btw']],
  ['PL', ['VAT', 23, 'VAT']],
  ['PT', ['VAT', 23, 'IVA']],
  ['RO', ['VAT', 21, 'TVA']],
  ['SK', ['VAT', 23, 'DPH']],
  ['SI', ['VAT', 22, 'DDV']],
  ['ES', ['VAT', 21, 'IVA']],
  ['SE', ['VAT', 25, 'moms']],
  ['GB', ['VAT', 20, 'VAT']],
  ['CH', ['VAT', 8.1, 'MWST / TVA / IVA']],
  ['LI', ['VAT', 8.1, 'MWST']],
  ['NO', ['VAT', 25, 'MVA']],
  ['IS', ['VAT', 24, 'VSK']],
  ['AU', ['GST', 10, 'GST']],
  ['NZ', ['GST', 15, 'GST']],
  ['CA', ['GST', 5, 'GST']],
  ['SG', ['GST', 9, 'GST']],
  ['IN', ['GST', 18, 'GST']],
  ['JP', ['consumption_tax', 10, 'Consumption tax (消費税)']],
  ['KR', ['VAT', 10, 'VAT (부가가치세)']],
  ['CN', ['VAT', 13, 'VAT (增值税)']],
  ['TW', ['VAT', 5, 'Business tax (營業稅)']],
  ['TH', ['VAT', 7, 'VAT']],
  ['PH', ['VAT', 12, 'VAT']],
  ['ZA', ['VAT', 15, 'VAT']],
  ['MX', ['VAT', 16, 'IVA']],
  ['TR', ['VAT', 20, 'KDV']],
  ['AE', ['VAT', 5, 'VAT']],
  ['SA', ['VAT', 15, 'VAT']],
  ['IL', ['VAT', 18, "Ma'am (VAT)"]],
  ['UA', ['VAT', 20, 'ПДВ']],
  ['US', ['sales_tax', null, 'Sales tax']],
]);

const NONE: Readonly<TaxInfo> = Object.freeze({ type: null, standardRate: null, name: null });
const cache = new Map<string, Readonly<TaxInfo>>();

/** The tax group for a country; all fields null for a country outside the table. Cached. */
export function taxFor(country: string): Readonly<TaxInfo> {
  let info = cache.get(country);
  if (info) return info;
  const row = TABLE.get(country);
  info = row ? Object.freeze({ type: row[0], standardRate: row[1], name: row[2] }) : NONE;
  cache.set(country, info);
  return info;
}
