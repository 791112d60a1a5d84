// The IP security classification port (the `security` object of the visitor and lookup results;
// docs/api.md: Security flags and data refresh). Lookups depend only on this interface;
// list-classifier.ts implements it over the compiled range table (compile.ts, range-table.ts), and
// noMatchClassifier stands in when no data is loaded.
import type { ParsedIp } from '../ip/parse-ip.js';
import * as z from '../zod.js';

export const SecurityFlagsSchema = z
  .object({
    isTor: z
      .boolean()
      .check(
        z.describe('Listed as a Tor exit relay (IPv4, and IPv6 where the relay list gives IPv6 addresses).'),
      ),
    isVpn: z.boolean().check(z.describe('Inside a range listed as a VPN provider.')),
    isDatacenter: z
      .boolean()
      .check(z.describe('Inside a range listed as hosting or cloud (datacenter) infrastructure.')),
    isThreat: z.boolean().check(z.describe('Listed by threat-intelligence blocklists.')),
    isSanctionedNetwork: z
      .boolean()
      .check(
        z.describe(
          'Inside an autonomous system whose address space is mostly located in a comprehensively ' +
            'sanctioned jurisdiction (CU, IR, KP, SY). A hint from IP geolocation, not a sanctions screening.',
        ),
      ),
  })
  .check(
    z.describe(
      'List-based indicators. False means no match in the available data, not an absence of risk. ' +
        'Omitted on plans without security data.',
    ),
  );

export type SecurityFlags = z.infer<typeof SecurityFlagsSchema>;

export interface SecurityClassifier {
  classify(ip: ParsedIp): SecurityFlags;
}

/** Every flag false: no match in the available data. */
export const NO_MATCH: SecurityFlags = Object.freeze({
  isTor: false,
  isVpn: false,
  isDatacenter: false,
  isThreat: false,
  isSanctionedNetwork: false,
});

/** A classifier with no lists: every flag false ("no match in available data"). */
export const noMatchClassifier: SecurityClassifier = {
  classify: () => ({ ...NO_MATCH }),
};
