import dns2 from 'dns2';
import { DEFAULT_DNS_CANARY } from '../../functions/lib/dns/canary.js';

// A real DNS server on 127.0.0.1:<random port> (UDP), answering from a function, optionally after
// a delay, and counting the queries it receives per "TYPE name". Used by the DNS integration
// tests, the endpoint tests and the benchmarks. Like any working resolver it answers the MX of the
// DNS canary's names (functions/lib/dns/canary.ts), so negative answers are believed; a test of a
// lying resolver passes `canary: false`. Canary queries are not in total().

const { Packet } = dns2;

/** A record: a dns2 resource without the name, class and TTL, which are filled in per answer. */
export type Rr = Omit<dns2.Packet.Resource, 'name' | 'class' | 'ttl' | 'toBuffer'>;
/** Records (an empty list is NODATA), or a failure mode. */
export type Answer = Rr[] | 'nxdomain' | 'servfail' | 'silent';

export interface DnsServer {
  readonly address: string;
  count(type: string, name: string): number;
  total(): number;
  close(): Promise<void>;
}

export const TYPE_NAMES: Record<number, string> = {
  [Packet.TYPE.MX]: 'MX',
  [Packet.TYPE.A]: 'A',
  [Packet.TYPE.AAAA]: 'AAAA',
  [Packet.TYPE.TXT]: 'TXT',
  [Packet.TYPE.CNAME]: 'CNAME',
  [Packet.TYPE.PTR]: 'PTR',
};

export async function startDnsServer(options: {
  answer: (name: string) => Answer;
  /** How long to wait before answering: for every query, or per name. */
  delayMs?: number | ((name: string) => number);
  /** Answer the canary names' MX (default true); a function is asked at each query. */
  canary?: boolean | (() => boolean);
}): Promise<DnsServer> {
  const canaryUp = typeof options.canary === 'function' ? options.canary : () => options.canary !== false;
  const canaryNames = new Set<string>(DEFAULT_DNS_CANARY);
  const counts = new Map<string, number>();
  let total = 0;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const question = request.questions[0];
      if (question === undefined) return;
      const name = question.name.toLowerCase();
      const key = `${TYPE_NAMES[question.type] ?? question.type} ${name}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const isCanary = canaryNames.has(name) && canaryUp();
      if (!isCanary) total++;
      const answer = isCanary ? [mx(`mx.${name}`)] : options.answer(name);
      if (answer === 'silent') return; // never answers: the client times out
      const response = Packet.createResponseFromRequest(request);
      if (answer === 'servfail') response.header.rcode = Packet.RCODE.SERVFAIL;
      else if (answer === 'nxdomain') response.header.rcode = Packet.RCODE.NXDOMAIN;
      else {
        for (const record of answer.filter((rr) => rr.type === question.type)) {
          response.answers.push({
            name: question.name,
            class: Packet.CLASS.IN,
            ttl: 300,
            ...record,
          } as dns2.Packet.Resource);
        }
      }
      const delay = typeof options.delayMs === 'function' ? options.delayMs(name) : options.delayMs;
      if (delay) setTimeout(() => void send(response), delay);
      else void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = addresses.udp?.port ?? server.addresses().udp?.port;
  return {
    address: `127.0.0.1:${port}`,
    count: (type, name) => counts.get(`${type} ${name}`) ?? 0,
    total: () => total,
    close: () => server.close(),
  };
}

export const mx = (exchange: string, priority = 10): Rr => ({ type: Packet.TYPE.MX, exchange, priority });
export const a = (address: string): Rr => ({ type: Packet.TYPE.A, address });
export const aaaa = (address: string): Rr => ({ type: Packet.TYPE.AAAA, address });
export const txt = (data: string): Rr => ({ type: Packet.TYPE.TXT, data });
/** PTR: dns2 names the target field `domain`, as for CNAME. */
export const ptr = (target: string): Rr => ({ type: Packet.TYPE.PTR, domain: target });
/** CNAME: dns2 names the target field `domain`. */
export const cname = (target: string): Rr => ({ type: Packet.TYPE.CNAME, domain: target });
