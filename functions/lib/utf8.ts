import { isUtf8 } from 'node:buffer';

// Bodies and uploads are UTF-8 only: decoded as they are, a stray byte would become U+FFFD, and two
// different inputs (a user id, a rule) the same string. This finds the first bad byte to name it.

/**
 * The 1-based line holding the first byte sequence that is not UTF-8, or null when all of it is.
 * Decoded and encoded again, the bytes differ first there (a valid prefix comes back as it was).
 */
export function firstNonUtf8Line(bytes: Uint8Array): number | null {
  if (isUtf8(bytes)) return null;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const again = Buffer.from(buffer.toString('utf8'), 'utf8');
  let at = 0;
  while (at < buffer.length && buffer[at] === again[at]) at++;
  let line = 1;
  for (let nl = buffer.indexOf(0x0a); nl >= 0 && nl < at; nl = buffer.indexOf(0x0a, nl + 1)) line++;
  return line;
}

/**
 * Every 1-based line holding a byte sequence that is not UTF-8, in order (none when all of it is).
 * Lines end at LF, CR LF or a lone CR, as the CSV readers count them. Line breaks are bytes no
 * multi-byte sequence contains, so each line is checked alone.
 */
export function nonUtf8Lines(bytes: Uint8Array): number[] {
  if (isUtf8(bytes)) return [];
  const lines: number[] = [];
  let line = 1;
  let start = 0;
  for (let at = 0; at <= bytes.length; at++) {
    const byte = bytes[at];
    if (at < bytes.length && byte !== 0x0a && byte !== 0x0d) continue;
    if (!isUtf8(bytes.subarray(start, at))) lines.push(line);
    if (byte === 0x0d && bytes[at + 1] === 0x0a) at++;
    start = at + 1;
    line++;
  }
  return lines;
}

/**
 * The bytes without a leading UTF-8 byte order mark. JSON texts must not start with one, but a
 * parser may ignore it (RFC 8259, section 8.1), and Windows tools write it: the API ignores it, as
 * the CSV reader does.
 */
export function withoutBom(bytes: Buffer): Buffer {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
    ? bytes.subarray(3)
    : bytes;
}
