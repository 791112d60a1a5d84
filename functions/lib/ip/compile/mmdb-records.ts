// Walks every record of an MMDB data section in file order (MaxMind DB format spec 2.0, "Data Section
// Format"). The build uses it to list the distinct (country, subdivision name) pairs that the DB-IP
// city files can return, so the subdivision table covers exactly those. `maxmind` can only look
// addresses up, not enumerate, hence this small decoder. Items are decoded one after another from the
// start of the data section; pointers are followed for values but do not move the cursor.
import { Reader } from 'maxmind';

const SEPARATOR_BYTES = 16;
const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

type Value = string | number | boolean | bigint | Uint8Array | Value[] | { [key: string]: Value };

class DataSection {
  private readonly text = new TextDecoder();

  constructor(
    private readonly db: Buffer,
    private readonly base: number,
  ) {}

  decode(offset: number): [Value, number] {
    const db = this.db;
    let at = offset;
    const ctrl = db[at++] as number;
    let type = ctrl >> 5;
    if (type === 1) {
      const size = (ctrl >> 3) & 3;
      const high = ctrl & 7;
      let pointer: number;
      if (size === 0) pointer = (high << 8) | (db[at] as number);
      else if (size === 1) pointer = ((high << 16) | db.readUInt16BE(at)) + 2048;
      else if (size === 2) pointer = high * 0x1000000 + db.readUIntBE(at, 3) + 526336;
      else pointer = db.readUInt32BE(at);
      at += size + 1;
      return [this.decode(this.base + pointer)[0], at];
    }
    if (type === 0) type = 7 + (db[at++] as number);
    let size = ctrl & 31;
    if (size === 29) size = 29 + (db[at++] as number);
    else if (size === 30) {
      size = 285 + db.readUInt16BE(at);
      at += 2;
    } else if (size === 31) {
      size = 65821 + db.readUIntBE(at, 3);
      at += 3;
    }
    switch (type) {
      case 2:
        return [this.text.decode(db.subarray(at, at + size)), at + size];
      case 3:
        return [db.readDoubleBE(at), at + 8];
      case 4:
        return [db.subarray(at, at + size), at + size];
      case 5:
      case 6: {
        let v = 0;
        for (let i = 0; i < size; i++) v = v * 256 + (db[at + i] as number);
        return [v, at + size];
      }
      case 9:
      case 10: {
        let v = 0n;
        for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(db[at + i] as number);
        return [v, at + size];
      }
      case 7: {
        const map: { [key: string]: Value } = {};
        for (let i = 0; i < size; i++) {
          const [key, next] = this.decode(at);
          const [value, after] = this.decode(next);
          map[String(key)] = value;
          at = after;
        }
        return [map, at];
      }
      case 8: {
        let v = 0;
        for (let i = 0; i < size; i++) v = (v << 8) | (db[at + i] as number);
        return [v | 0, at + size];
      }
      case 11: {
        const list: Value[] = [];
        for (let i = 0; i < size; i++) {
          const [value, next] = this.decode(at);
          list.push(value);
          at = next;
        }
        return [list, at];
      }
      case 14:
        return [size !== 0, at];
      case 15:
        return [db.readFloatBE(at), at + 4];
      default:
        throw new Error(`unsupported MMDB data type ${type} at byte ${offset}`);
    }
  }
}

/** Calls `visit` with every top-level map of the data section, in file order. Returns the count. */
export function forEachMmdbRecord(db: Buffer, visit: (record: Record<string, unknown>) => void): number {
  const { metadata } = new Reader(db);
  const start = metadata.searchTreeSize + SEPARATOR_BYTES;
  const end = db.lastIndexOf(METADATA_MARKER);
  if (end < start) throw new Error('MMDB metadata marker not found');
  const section = new DataSection(db, start);
  let count = 0;
  for (let at = start; at < end; ) {
    const [value, next] = section.decode(at);
    at = next;
    if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) {
      visit(value as Record<string, unknown>);
      count++;
    }
  }
  return count;
}
