import type { LookupAddress } from 'node:dns';
import { normaliseHostname } from '../dns/host-name.js';
import { parseIp } from '../ip/parse-ip.js';
import { type SpecialRange, specialRange } from '../ip/special-ranges.js';

// Where a webhook may be delivered. A customer names the URL, so the URL must never make our
// functions reach what only they can reach: private networks, loopback, link-local (the instance
// metadata service at 169.254.169.254 and fd00:ec2::254), shared, reserved and translated ranges.
// The host is checked twice: its form when the endpoint is created (parseDestination), and the
// addresses it resolves to at every connection (guardedLookup, given to the HTTP agent as its
// `lookup`), so a name that resolves to a public address at creation and to a private one later
// (DNS rebinding) is refused before any connection is attempted.
//
// The local stack may deliver to loopback (allowLoopback: WEBHOOKS_ALLOW_LOOPBACK=true, so tests
// can run a receiver on 127.0.0.1); nothing else is ever allowed.

export interface DestinationPolicy {
  /** Loopback receivers (127.0.0.0/8, ::1) over http or https: the local stack's tests only. */
  readonly allowLoopback: boolean;
}

export type DestinationRefusal = 'invalid_url' | 'scheme' | 'credentials' | 'address';

export type DestinationCheck =
  | { ok: true; url: URL }
  | { ok: false; reason: DestinationRefusal; message: string };

export const DESTINATION_URL_MAX_LENGTH = 2048;

const PORT_MESSAGE = 'The port of the URL must be from 1 to 65535.';
/** The port of a URL's authority when it is a number above 65535 (`//host:65536/`, `//[::1]:99999`): prefix, port. */
const LARGE_PORT =
  /^([a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?(?:\[[^\]/?#]*\]|[^:/?#[\]]*):)(0*(?:[1-9]\d{5,}|6553[6-9]|655[4-9]\d|65[6-9]\d\d|6[6-9]\d{3}|[7-9]\d{4}))(?=[/?#]|$)/i;

/** Whether WHATWG URL refused `raw` for its port alone: the same URL with port 1 is a URL. */
function portOutOfRange(raw: string): boolean {
  const match = LARGE_PORT.exec(raw);
  if (!match) return false;
  try {
    new URL(`${match[1]}1${raw.slice(match[0].length)}`);
    return true;
  } catch {
    return false;
  }
}

/** How a refusal names each special-purpose range. */
const RANGE_WORDS: Record<SpecialRange, string> = {
  unspecified: 'unspecified',
  private: 'private',
  loopback: 'loopback',
  'link-local': 'link-local (cloud metadata)',
  cgnat: 'shared (carrier-grade NAT)',
  documentation: 'documentation',
  benchmarking: 'benchmarking',
  multicast: 'multicast',
  reserved: 'reserved',
  // NAT64, and the tunnels of an IPv4 host (6to4, Teredo): refused whatever address they carry.
  translation: 'translation or tunnel (NAT64, 6to4, Teredo)',
};

/** Why a resolved or literal address may not be connected to; null when it may. */
export function addressRefusal(address: string, policy: DestinationPolicy): string | null {
  const ip = parseIp(address);
  if (!ip) return `${address} is not an IP address`;
  const special = specialRange(ip);
  if (special === 'loopback' && policy.allowLoopback) return null;
  if (special === null) return null;
  const words = RANGE_WORDS[special];
  return `${ip.canonical} is ${/^[aeiou]/.test(words) ? 'an' : 'a'} ${words} address`;
}

/** Whether `address` is in the loopback range (127.0.0.0/8, ::1). */
function isLoopbackAddress(address: string): boolean {
  const ip = parseIp(address);
  return ip !== null && specialRange(ip) === 'loopback';
}

/** The host of a URL as an address when it is one (IPv6 without its brackets). */
function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return parseIp(bare) ? bare : null;
}

/**
 * `localhost` and the names under it, with or without the root's dot: RFC 6761 has them resolve to
 * loopback, and a resolver may answer them without asking DNS.
 */
function isLocalhostName(hostname: string): boolean {
  const name = normaliseHostname(hostname);
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Whether a webhook may be created with `raw`: an https URL (http only to loopback, where allowed)
 * without user or password, whose host is a name or a public address. A name is checked again at
 * every delivery (guardedLookup).
 */
export function parseDestination(raw: string, policy: DestinationPolicy): DestinationCheck {
  if (raw.length > DESTINATION_URL_MAX_LENGTH) {
    return {
      ok: false,
      reason: 'invalid_url',
      message: `The URL is longer than ${DESTINATION_URL_MAX_LENGTH.toLocaleString('en-US')} characters.`,
    };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // WHATWG URL refuses a port over 65535 outright: said as what it is, like port 0 below.
    if (portOutOfRange(raw)) return { ok: false, reason: 'invalid_url', message: PORT_MESSAGE };
    return { ok: false, reason: 'invalid_url', message: 'The URL is not an absolute URL.' };
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'credentials', message: 'The URL may not carry a user or password.' };
  }
  // WHATWG URL keeps port 0, which no connection can reach.
  if (url.port === '0') {
    return { ok: false, reason: 'invalid_url', message: PORT_MESSAGE };
  }
  const literal = literalAddress(url.hostname);
  const localhost = isLocalhostName(url.hostname);
  // http only to a loopback receiver: a literal in the loopback range, or localhost (never a public
  // address, which is merely not refused).
  const loopback = policy.allowLoopback && (literal !== null ? isLoopbackAddress(literal) : localhost);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    return { ok: false, reason: 'scheme', message: 'Webhooks are delivered over https only.' };
  }
  if (literal !== null) {
    const refusal = addressRefusal(literal, policy);
    if (refusal)
      return { ok: false, reason: 'address', message: `Webhooks go to public addresses only: ${refusal}.` };
  } else if (localhost && !policy.allowLoopback) {
    return { ok: false, reason: 'address', message: 'Webhooks are not delivered to localhost.' };
  }
  return { ok: true, url };
}

/** What dns.lookup answers with `{all: true}`: the resolver a delivery's connection uses. */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

/** A refused connection: the host resolved to an address webhooks are never delivered to. */
export class DestinationRefusedError extends Error {
  readonly code = 'EWEBHOOKDESTINATION';
  constructor(message: string) {
    super(message);
    this.name = 'DestinationRefusedError';
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) agents and net.connect: it resolves with `resolve`, and refuses (with
 * DestinationRefusedError, before any socket is opened) a host any of whose addresses is not
 * allowed. Every address is checked, not just the first: a name that answers one public and one
 * private address is refused whole, so which one a connection picks never matters.
 */
export function guardedLookup(resolve: Resolve, policy: DestinationPolicy) {
  return (
    hostname: string,
    options: { all?: boolean } | number | undefined,
    callback: LookupCallback,
  ): void => {
    const all = typeof options === 'object' && options !== null && options.all === true;
    const literal = literalAddress(hostname);
    const answer: Promise<readonly LookupAddress[]> = literal
      ? Promise.resolve([{ address: literal, family: literal.includes(':') ? 6 : 4 }])
      : resolve(hostname);
    answer.then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
          return;
        }
        for (const a of addresses) {
          const refusal = addressRefusal(a.address, policy);
          if (refusal) {
            callback(new DestinationRefusedError(`${hostname} resolves to ${refusal}`), []);
            return;
          }
        }
        if (all) callback(null, [...addresses]);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
