import { type IpRange, parseCidr } from '../ip-range.js';
import { type ParseResult, SourceFormatError } from './parse-result.js';

// The cloud providers' own range files:
//   AWS  https://ip-ranges.amazonaws.com/ip-ranges.json  {prefixes: [{ip_prefix}], ipv6_prefixes: [{ipv6_prefix}]}
//   GCP  https://www.gstatic.com/ipranges/cloud.json     {prefixes: [{ipv4Prefix} | {ipv6Prefix}]}
// (customer-facing compute ranges; the providers publish them for anyone to download).

function parseJson(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SourceFormatError(`${what}: not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SourceFormatError(`${what}: not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function collect(items: unknown, keys: readonly string[], out: ParseResult<IpRange>): void {
  if (!Array.isArray(items)) return;
  for (const item of items) {
    const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const text = keys.map((k) => record[k]).find((v): v is string => typeof v === 'string');
    const range = text === undefined ? null : parseCidr(text);
    if (range === null) out.invalid++;
    else out.entries.push(range);
  }
}

export function parseAwsIpRanges(text: string): ParseResult<IpRange> {
  const json = parseJson(text, 'AWS ip-ranges.json');
  if (!Array.isArray(json.prefixes)) throw new SourceFormatError('AWS ip-ranges.json: no "prefixes" array');
  const out: ParseResult<IpRange> = { entries: [], invalid: 0 };
  collect(json.prefixes, ['ip_prefix'], out);
  collect(json.ipv6_prefixes, ['ipv6_prefix'], out);
  return out;
}

export function parseGcpCloudJson(text: string): ParseResult<IpRange> {
  const json = parseJson(text, 'GCP cloud.json');
  if (!Array.isArray(json.prefixes)) throw new SourceFormatError('GCP cloud.json: no "prefixes" array');
  const out: ParseResult<IpRange> = { entries: [], invalid: 0 };
  collect(json.prefixes, ['ipv4Prefix', 'ipv6Prefix'], out);
  return out;
}
