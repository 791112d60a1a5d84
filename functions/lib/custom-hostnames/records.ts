import type { DnsRecord, HostnameRecord } from './hostname.js';

// The two records a customer publishes for a custom hostname:
// - CNAME <hostname> -> our edge: routes the traffic (in AWS, the connection group's routing
//   endpoint of the multi-tenant distribution; CloudFront also validates its managed TLS
//   certificate over HTTP through it).
// - TXT _netintel-challenge.<hostname> = <token>: proves that whoever claimed the hostname controls
//   its DNS. The token is random per claim, so a CNAME left pointing at us after a removal (a
//   dangling record) cannot be taken over by another account. Locally it also stands for the TLS
//   validation step.

export const CHALLENGE_LABEL = '_netintel-challenge';
export const CHALLENGE_PREFIX = 'netintel-verification=';

export function challengeName(hostname: string): string {
  return `${CHALLENGE_LABEL}.${hostname}`;
}

export function challengeValue(token: string): string {
  return `${CHALLENGE_PREFIX}${token}`;
}

/** The records to create, in the order a DNS console shows them. */
export function recordsFor(record: Pick<HostnameRecord, 'hostname' | 'target' | 'token'>): DnsRecord[] {
  return [
    { type: 'CNAME', name: record.hostname, value: record.target },
    { type: 'TXT', name: challengeName(record.hostname), value: challengeValue(record.token) },
  ];
}
