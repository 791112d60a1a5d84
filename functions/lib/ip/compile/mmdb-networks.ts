// Counts the networks of an MMDB file from its search tree (MaxMind DB format spec 2.0, "Search Tree
// Section"), without decoding a record. The refresh uses the count to refuse a downloaded database
// that lost much of its coverage (refresh/mmdb-download.ts `checkCandidate`).
//
// The tree is `nodeCount` nodes of two records each (left: bit 0, right: bit 1), `recordSize` bits a
// record. A record below `nodeCount` points to another node, one equal to it means "no data", and one
// above it points into the data section: that record ends a network. Going through the node array
// once, rather than walking the tree from its root, counts each network once even where an IPv6
// tree aliases IPv4 space (::ffff:0:0/96, 2002::/16 and Teredo point at the IPv4 subtree's node).
import { Reader } from 'maxmind';

const DATA_SECTION_SEPARATOR = 16;
const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

/**
 * The number of networks (search-tree records that point into the data section) of an MMDB file.
 * Throws when the file is not an MMDB file of format 2, when its search tree does not fit before the
 * metadata, or when a record points outside the data section (a truncated or corrupt file).
 */
export function countMmdbNetworks(db: Uint8Array): number {
  const buffer = Buffer.isBuffer(db) ? db : Buffer.from(db.buffer, db.byteOffset, db.byteLength);
  const { metadata } = new Reader(buffer);
  if (metadata.binaryFormatMajorVersion !== 2) {
    throw new Error(`MMDB binary format ${metadata.binaryFormatMajorVersion} is not supported`);
  }
  const { nodeCount, recordSize } = metadata;
  const nodeBytes = (recordSize * 2) / 8;
  const treeBytes = nodeCount * nodeBytes;
  const metadataStart = buffer.lastIndexOf(METADATA_MARKER);
  const dataStart = treeBytes + DATA_SECTION_SEPARATOR;
  if (metadataStart < 0 || dataStart > metadataStart) {
    throw new Error(`MMDB search tree (${nodeCount} nodes) does not fit in the file: truncated or corrupt`);
  }
  const dataBytes = metadataStart - dataStart;
  // Record values that point into the data section: nodeCount + 16 + [0, dataBytes).
  const firstData = nodeCount + DATA_SECTION_SEPARATOR;
  const endData = firstData + dataBytes;

  let networks = 0;
  const check = (record: number, at: number): void => {
    if (record <= nodeCount) return;
    if (record < firstData || record >= endData) {
      throw new Error(`MMDB record at byte ${at} points outside the data section: truncated or corrupt`);
    }
    networks++;
  };

  const b = buffer;
  switch (recordSize) {
    case 24:
      for (let at = 0; at < treeBytes; at += 6) {
        check((b[at]! << 16) | (b[at + 1]! << 8) | b[at + 2]!, at);
        check((b[at + 3]! << 16) | (b[at + 4]! << 8) | b[at + 5]!, at);
      }
      break;
    case 28:
      for (let at = 0; at < treeBytes; at += 7) {
        const middle = b[at + 3]!;
        // 28 bits fit a signed 32-bit integer, so bit operations are safe here.
        check(((middle & 0xf0) << 20) | (b[at]! << 16) | (b[at + 1]! << 8) | b[at + 2]!, at);
        check(((middle & 0x0f) << 24) | (b[at + 4]! << 16) | (b[at + 5]! << 8) | b[at + 6]!, at);
      }
      break;
    case 32:
      for (let at = 0; at < treeBytes; at += 8) {
        check(b.readUInt32BE(at), at);
        check(b.readUInt32BE(at + 4), at);
      }
      break;
    default:
      throw new Error(`MMDB record size ${recordSize} is not supported`);
  }
  return networks;
}
