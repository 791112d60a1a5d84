import { type IpRange, parseCidr } from '../ip-range.js';
import { dataLines, type ParseResult } from './parse-result.js';

// Plain CIDR lists, one block or address per line, `#` comments: X4BNet lists_vpn
// (output/{vpn,datacenter}/ipv{4,6}.txt), lord-alfred/ipranges (<provider>/ipv{4,6}_merged.txt) and
// the Tor Project's TorBulkExitList (one address per line).

export function parseCidrList(text: string): ParseResult<IpRange> {
  const entries: IpRange[] = [];
  let invalid = 0;
  for (const line of dataLines(text)) {
    const range = parseCidr(line);
    if (range === null) invalid++;
    else entries.push(range);
  }
  return { entries, invalid };
}
