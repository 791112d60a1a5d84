import { type IpRange, parseAddress } from '../ip-range.js';
import { dataLines, type ParseResult } from './parse-result.js';

// stamparm/ipsum `ipsum.txt` (The Unlicense): `IP<TAB>n`, n being the number of public blocklists
// that list the address that day. IPsum's README: "greater the number, lesser the chance of false
// positive"; its ready-to-deploy ban-list example and levels/3.txt keep addresses on at least 3 lists.
// Listed once or twice is mostly scanners and reassigned dynamic addresses. Only addresses with
// n >= IPSUM_MIN_LISTS set isThreat.

export const IPSUM_MIN_LISTS = 3;

export function parseIpsum(text: string, minLists = IPSUM_MIN_LISTS): ParseResult<IpRange> {
  const entries: IpRange[] = [];
  let invalid = 0;
  for (const line of dataLines(text)) {
    const [ip = '', countText = ''] = line.split(/\s+/);
    const address = parseAddress(ip);
    const count = Number(countText);
    if (address === null || !Number.isInteger(count) || count < 1) {
      invalid++;
      continue;
    }
    if (count >= minLists) entries.push({ family: address.family, start: address.value, end: address.value });
  }
  return { entries, invalid };
}
