import { type IpRange, parseAddress } from '../ip-range.js';
import { type ParseResult, SourceFormatError } from './parse-result.js';

// alireza-rezaee/tor-nodes `latest.exits.csv` (MIT; built from the Tor consensus): one row per
// (relay, OR address) of relays with the Exit flag, `fingerprint, ipaddr, port`, IPv4 and IPv6.
// These are the relays' OR addresses, which for almost every exit are also the addresses its
// traffic leaves from; the Tor Project's TorBulkExitList (observed exit addresses, IPv4 only) is
// read as a second, optional source with the plain list parser.

export function parseTorExitCsv(text: string): ParseResult<IpRange> {
  const lines = text.split('\n');
  const header = (lines[0] ?? '').split(',').map((h) => h.trim().toLowerCase());
  const column = header.indexOf('ipaddr');
  if (column < 0) throw new SourceFormatError('Tor exit CSV: no "ipaddr" column in the header');
  const seen = new Set<string>();
  const entries: IpRange[] = [];
  let invalid = 0;
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    // Addresses may come bracketed ("[2001:db8::1]") in some exports.
    const field = (line.split(',')[column] ?? '').trim().replace(/^\[(.*)\]$/, '$1');
    const address = parseAddress(field);
    if (address === null) {
      invalid++;
      continue;
    }
    const key = `${address.family}:${address.value}`;
    if (seen.has(key)) continue; // one row per port: count each address once
    seen.add(key);
    entries.push({ family: address.family, start: address.value, end: address.value });
  }
  return { entries, invalid };
}
