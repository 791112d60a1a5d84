import {
  type Answer,
  a,
  aaaa,
  type DnsServer,
  mx,
  startDnsServer,
  txt,
} from '../../../support/dns-server.js';

// The fixture zone of the DNS integration tests, one name per mx.status, served by the shared
// loopback DNS server.

export type ZoneServer = DnsServer;

const ZONE: Record<string, Answer> = {
  'mx-found.example': [mx('backup.mx-found.example', 20), mx('mail.mx-found.example', 10), a('192.0.2.25')],
  'batch.example': [mx('mx.batch.example')],
  'implicit.example': [a('192.0.2.80')],
  'implicit6.example': [aaaa('2001:db8::80')],
  'none.example': [txt('v=spf1 -all')],
  'null-mx.example': [mx('', 0)],
  'servfail.example': 'servfail',
  'silent.example': 'silent',
};

export function startZoneServer(): Promise<ZoneServer> {
  return startDnsServer({ answer: (name) => ZONE[name] ?? 'nxdomain' });
}
