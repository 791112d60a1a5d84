import { dataLines, type ParseResult } from './parse-result.js';

// X4BNet lists_vpn `input/{datacenter,vpn}/ASN.txt` (MIT): the autonomous systems its range lists
// are built from, one per line, `AS45090 # Tencent cloud ...`.

export function parseAsnList(text: string): ParseResult<number> {
  const entries: number[] = [];
  let invalid = 0;
  for (const line of dataLines(text)) {
    const match = /^(?:AS)?(\d{1,10})$/i.exec(line);
    const asn = match ? Number(match[1]) : Number.NaN;
    if (!Number.isInteger(asn) || asn <= 0 || asn > 0xffff_ffff) invalid++;
    else entries.push(asn);
  }
  return { entries, invalid };
}
