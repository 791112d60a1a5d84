import type { SecurityFlag } from '../flags.js';
import type { IpRange } from '../ip-range.js';
import { parseAsnList } from './asn-list.js';
import { parseCidrList } from './cidr-list.js';
import { parseAwsIpRanges, parseGcpCloudJson } from './cloud-json.js';
import { IPSUM_MIN_LISTS, parseIpsum } from './ipsum.js';
import type { SourceFile } from './parse-result.js';
import { parseTorExitCsv } from './tor.js';

// Every upstream list behind the security flags: what it is, its licence, its upstream URL (the
// refresh fetches these) and the path of its copy in a snapshot directory (`--from DIR`). Not used,
// because their terms do not allow redistribution: FireHOL level1 and Spamhaus DROP/EDROP.

interface SourceBase {
  id: string;
  name: string;
  flag: SecurityFlag;
  licence: string;
  homepage: string;
  note?: string;
}

/** A list of address ranges. */
export interface RangeListSource extends SourceBase {
  kind: 'ranges';
  files: SourceFile<IpRange>[];
}

/** A list of autonomous systems, expanded into ranges with the ASN data at compile time. */
export interface AsnListSource extends SourceBase {
  kind: 'asns';
  files: SourceFile<number>[];
}

export type SecuritySource = RangeListSource | AsnListSource;

const X4B = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main';
const LORD_ALFRED = 'https://raw.githubusercontent.com/lord-alfred/ipranges/main';

/**
 * Hosting and cloud providers of lord-alfred/ipranges read as datacenter ranges, and whether the
 * repository has an IPv6 list for them. Left out on purpose: facebook, twitter and telegram
 * (corporate networks, not hosting), apple-proxy (iCloud Private Relay egress: a relay used by
 * ordinary Safari users, not a hosting or VPN range) and protonvpn (read as VPN below).
 * Crawler and monitoring ranges are hosting by nature and are optional: they are small, and one
 * vanishing upstream must not block a refresh.
 */
const HOSTING_PROVIDERS: readonly { name: string; v6: boolean; optional: boolean }[] = [
  { name: 'amazon', v6: true, optional: false },
  { name: 'google', v6: true, optional: false },
  { name: 'microsoft', v6: true, optional: false },
  { name: 'oracle', v6: false, optional: false },
  { name: 'digitalocean', v6: true, optional: false },
  { name: 'linode', v6: true, optional: false },
  { name: 'vultr', v6: true, optional: false },
  { name: 'cloudflare', v6: true, optional: true },
  { name: 'github', v6: true, optional: true },
  { name: 'openai', v6: false, optional: true },
  { name: 'perplexity', v6: false, optional: true },
  { name: 'googlebot', v6: true, optional: true },
  { name: 'bing', v6: false, optional: true },
  { name: 'duckduckbot', v6: false, optional: true },
  { name: 'duckassistbot', v6: false, optional: true },
  { name: 'pingdom', v6: true, optional: true },
  { name: 'statuscake', v6: false, optional: true },
];

function lordAlfredFiles(provider: string, v6: boolean, optional: boolean): SourceFile<IpRange>[] {
  return (v6 ? ['ipv4', 'ipv6'] : ['ipv4']).map((family) => ({
    id: `lord-alfred-${provider}-${family}`,
    url: `${LORD_ALFRED}/${provider}/${family}_merged.txt`,
    snapshot: `cloud-ip-ranges/lord-alfred-ipranges/${provider}/${family}_merged.txt`,
    optional,
    parse: parseCidrList,
  }));
}

export const SECURITY_SOURCES: readonly SecuritySource[] = [
  {
    kind: 'ranges',
    id: 'tor-exits',
    name: 'Tor exit relays (alireza-rezaee/tor-nodes, from the Tor consensus)',
    flag: 'isTor',
    licence: 'MIT',
    homepage: 'https://github.com/alireza-rezaee/tor-nodes',
    note: 'OR addresses (IPv4 and IPv6) of relays with the Exit flag',
    files: [
      {
        id: 'tor-exits-csv',
        url: 'https://raw.githubusercontent.com/alireza-rezaee/tor-nodes/main/latest.exits.csv',
        snapshot: 'tor-exit-nodes/alireza-rezaee.latest.exits.csv',
        parse: parseTorExitCsv,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'tor-bulk-exit-list',
    name: 'Tor Project TorBulkExitList (observed exit addresses)',
    flag: 'isTor',
    licence: 'Tor Project public data (no licence stated on the list)',
    homepage: 'https://check.torproject.org/torbulkexitlist',
    note: 'optional: fetched upstream only; no redistributable snapshot exists',
    files: [
      {
        id: 'tor-bulk-exit-list',
        url: 'https://check.torproject.org/torbulkexitlist',
        snapshot: null,
        optional: true,
        parse: parseCidrList,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'x4bnet-vpn',
    name: 'X4BNet lists_vpn: VPN provider ranges',
    flag: 'isVpn',
    licence: 'MIT',
    homepage: 'https://github.com/X4BNet/lists_vpn',
    files: ['ipv4', 'ipv6'].map((family) => ({
      id: `x4bnet-vpn-${family}`,
      url: `${X4B}/output/vpn/${family}.txt`,
      snapshot: `x4bnet-vpn-datacenter/vpn/${family}.txt`,
      parse: parseCidrList,
    })),
  },
  {
    kind: 'asns',
    id: 'x4bnet-vpn-asns',
    name: 'X4BNet lists_vpn: VPN provider ASNs, expanded with the ASN data',
    flag: 'isVpn',
    licence: 'MIT (list); CC-BY-4.0 (ip-location-db ASN ranges)',
    homepage: 'https://github.com/X4BNet/lists_vpn',
    files: [
      {
        id: 'x4bnet-vpn-asns',
        url: `${X4B}/input/vpn/ASN.txt`,
        snapshot: 'x4bnet-vpn-datacenter/vpn/input-ASN.txt',
        parse: parseAsnList,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'protonvpn',
    name: 'lord-alfred/ipranges: ProtonVPN exit ranges',
    flag: 'isVpn',
    licence: 'CC0-1.0',
    homepage: 'https://github.com/lord-alfred/ipranges',
    files: lordAlfredFiles('protonvpn', false, false),
  },
  {
    kind: 'ranges',
    id: 'x4bnet-datacenter',
    name: 'X4BNet lists_vpn: datacenter and hosting ranges',
    flag: 'isDatacenter',
    licence: 'MIT',
    homepage: 'https://github.com/X4BNet/lists_vpn',
    files: ['ipv4', 'ipv6'].map((family) => ({
      id: `x4bnet-datacenter-${family}`,
      url: `${X4B}/output/datacenter/${family}.txt`,
      snapshot: `x4bnet-vpn-datacenter/datacenter/${family}.txt`,
      parse: parseCidrList,
    })),
  },
  {
    kind: 'asns',
    id: 'x4bnet-datacenter-asns',
    name: 'X4BNet lists_vpn: hosting ASNs, expanded with the ASN data',
    flag: 'isDatacenter',
    licence: 'MIT (list); CC-BY-4.0 (ip-location-db ASN ranges)',
    homepage: 'https://github.com/X4BNet/lists_vpn',
    files: [
      {
        id: 'x4bnet-datacenter-asns',
        url: `${X4B}/input/datacenter/ASN.txt`,
        snapshot: 'x4bnet-vpn-datacenter/datacenter/input-ASN.txt',
        parse: parseAsnList,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'aws-ip-ranges',
    name: 'AWS ip-ranges.json',
    flag: 'isDatacenter',
    licence: 'published by AWS for anyone to download; no licence stated',
    homepage: 'https://docs.aws.amazon.com/vpc/latest/userguide/aws-ip-ranges.html',
    files: [
      {
        id: 'aws-ip-ranges',
        url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
        snapshot: 'cloud-ip-ranges/provider-published/aws-ip-ranges.json',
        parse: parseAwsIpRanges,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'gcp-cloud',
    name: 'Google Cloud cloud.json',
    flag: 'isDatacenter',
    licence: 'published by Google for anyone to download; no licence stated',
    homepage: 'https://support.google.com/a/answer/10026322',
    files: [
      {
        id: 'gcp-cloud',
        url: 'https://www.gstatic.com/ipranges/cloud.json',
        snapshot: 'cloud-ip-ranges/provider-published/google-cloud-ip-ranges.json',
        parse: parseGcpCloudJson,
      },
    ],
  },
  {
    kind: 'ranges',
    id: 'lord-alfred-hosting',
    name: 'lord-alfred/ipranges: cloud, hosting, crawler and monitoring providers (merged lists)',
    flag: 'isDatacenter',
    licence: 'CC0-1.0',
    homepage: 'https://github.com/lord-alfred/ipranges',
    note: HOSTING_PROVIDERS.map((p) => p.name).join(', '),
    files: HOSTING_PROVIDERS.flatMap((p) => lordAlfredFiles(p.name, p.v6, p.optional)),
  },
  {
    kind: 'ranges',
    id: 'ipsum',
    name: `IPsum threat feed (addresses on at least ${IPSUM_MIN_LISTS} blocklists)`,
    flag: 'isThreat',
    licence: 'Unlicense',
    homepage: 'https://github.com/stamparm/ipsum',
    note: `threshold: listed by >= ${IPSUM_MIN_LISTS} blocklists`,
    files: [
      {
        id: 'ipsum',
        url: 'https://raw.githubusercontent.com/stamparm/ipsum/master/ipsum.txt',
        snapshot: 'ipsum/ipsum.txt',
        parse: (text) => parseIpsum(text),
      },
    ],
  },
];
