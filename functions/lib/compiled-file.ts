// What the readers of the compiled binary files (ip/asn-reader.ts, ip/postal-index.ts,
// security/range-table.ts) need before they lay 32-bit typed-array views over the bytes.

/** The typed-array views read the platform's byte order; the files are little-endian. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Copies into a fresh, 4-byte-aligned buffer when needed (a pooled Buffer may start anywhere). */
export function aligned(buf: Uint8Array): Uint8Array {
  if (buf.byteOffset % 4 === 0) return buf;
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return copy;
}
