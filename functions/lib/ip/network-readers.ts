// Readers of the network (ASN) databases (sources.ts), answering in the one NetworkRecord shape.
// The compiled range files already return one shared record per organisation; the MMDB sources
// normalise each decoded record once (location-readers.ts explains why the same object matters).
import { ASN_MAGIC, AsnTable } from './asn-reader.js';
import { expectFiles, mmdbDatabaseType, openMmdb, perRecord, rawRecord, text } from './location-readers.js';
import type { NetworkReader, NetworkRecord, NetworkSchema } from './sources.js';

const MAX_ASN = 0xffff_ffff;

/** A 32-bit AS number (RFC 6793); AS 0 (RFC 7607) means no AS, so it is no record either. */
function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_ASN ? value : null;
}

function fromMaxmind(raw: Readonly<Record<string, unknown>>): NetworkRecord | null {
  const asn = asNumber(raw.autonomous_system_number);
  if (asn === null) return null;
  return Object.freeze({ asn, organization: text(raw.autonomous_system_organization) });
}

/** IPinfo writes the AS as text, "AS15169". */
function fromIpinfo(raw: Readonly<Record<string, unknown>>): NetworkRecord | null {
  const match = typeof raw.asn === 'string' ? /^AS(\d{1,10})$/i.exec(raw.asn) : null;
  const asn = match ? asNumber(Number(match[1])) : null;
  if (asn === null) return null;
  return Object.freeze({ asn, organization: text(raw.as_name) });
}

const FILE_COUNT: Record<NetworkSchema, number> = { compiled: 2, 'maxmind-asn': 1, 'ipinfo-lite': 1 };

/**
 * Opens a network source: compiled from [asn-v4.bin, asn-v6.bin], maxmind-asn and ipinfo-lite from
 * their one file. Throws when the files do not fit the schema.
 */
export function openNetworkReader(schema: NetworkSchema, files: readonly Uint8Array[]): NetworkReader {
  expectFiles(schema, files, FILE_COUNT[schema]);
  if (schema === 'compiled') {
    const v4 = new AsnTable(files[0] as Uint8Array);
    const v6 = new AsnTable(files[1] as Uint8Array);
    if (v4.family !== 4 || v6.family !== 6) {
      throw new Error('compiled: the files must be the IPv4 range file, then the IPv6 one');
    }
    return {
      schema,
      get: (ip) => (ip.lookupFamily === 4 ? v4 : v6).lookup(ip),
      organizationOf: (asn) => v4.organizationOf(asn) ?? v6.organizationOf(asn),
    };
  }
  const reader = openMmdb(files[0] as Uint8Array);
  const normalise = perRecord(schema === 'maxmind-asn' ? fromMaxmind : fromIpinfo);
  return {
    schema,
    get: (ip) => normalise(rawRecord(reader, ip)),
    // An MMDB is keyed by address only; finding an AS's name would mean walking the whole file.
    organizationOf: () => null,
  };
}

const magic = new TextEncoder().encode(ASN_MAGIC);

/**
 * The network schema of a file, or null when it is none the readers know: a compiled range file by
 * its magic, an MMDB by its metadata's database type ("ipinfo ..." → ipinfo-lite; "...ASN..." →
 * maxmind-asn, which covers GeoLite2-ASN, GeoIP2-ASN and DB-IP's "DBIP-ASN-Lite (compat=GeoLite2-ASN)").
 */
export function detectNetworkSchema(file: Uint8Array): NetworkSchema | null {
  if (file.byteLength >= magic.length && magic.every((byte, i) => file[i] === byte)) return 'compiled';
  const type = mmdbDatabaseType(file);
  if (type === null) return null;
  if (/ipinfo/i.test(type)) return 'ipinfo-lite';
  if (/ASN/.test(type)) return 'maxmind-asn';
  return null;
}
