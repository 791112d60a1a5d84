import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A real RDAP server on 127.0.0.1:<random port> (node:http), answering from a function, optionally
// after a delay, and counting the domain queries it receives. It also serves an IANA-format
// bootstrap file at /dns.json that sends the given TLDs to itself, so RDAP_BOOTSTRAP_URL can point
// the service at it. Used by the signup tests and the benchmark.

/** How the registry answers `domain/<name>`. */
export type RdapAnswer =
  | { registered: Date | string }
  /** 200 with a domain object that has no registration event. */
  | 'no_date'
  | 'not_found'
  | 'error'
  /** Never answers: the client times out. */
  | 'silent';

export interface RdapServer {
  readonly url: string;
  /** URL of the bootstrap file listing `tlds` with this server as their RDAP service. */
  readonly bootstrapUrl: string;
  /** The bootstrap file itself. */
  bootstrap(): unknown;
  count(domain: string): number;
  total(): number;
  close(): Promise<void>;
}

function rdapJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/rdap+json' });
  res.end(JSON.stringify(body));
}

function domainObject(name: string, registered: string | null): unknown {
  const events = [
    ...(registered ? [{ eventAction: 'registration', eventDate: registered }] : []),
    { eventAction: 'expiration', eventDate: '2099-01-01T00:00:00Z' },
    { eventAction: 'last update of RDAP database', eventDate: new Date().toISOString() },
  ];
  return {
    objectClassName: 'domain',
    rdapConformance: ['rdap_level_0'],
    handle: `${name.toUpperCase()}-TEST`,
    ldhName: name,
    status: ['active'],
    events,
  };
}

export async function startRdapServer(options: {
  tlds: string[];
  answer: (domain: string) => RdapAnswer;
  delayMs?: number;
}): Promise<RdapServer> {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let total = 0;
  let base = '';
  const bootstrap = () => ({
    description: 'RDAP bootstrap file for Domain Name System registrations (test fixture)',
    publication: '2025-01-01T00:00:00Z',
    services: [[options.tlds, [`${base}/rdap/`]]],
    version: '1.0',
  });

  const respond = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/dns.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(bootstrap()));
      return;
    }
    const m = /^\/rdap\/domain\/([^/]+)$/.exec(path);
    if (!m) {
      rdapJson(res, 400, { errorCode: 400, title: 'Bad Request' });
      return;
    }
    const domain = decodeURIComponent(m[1]!).toLowerCase();
    counts.set(domain, (counts.get(domain) ?? 0) + 1);
    total++;
    const answer = options.answer(domain);
    if (answer === 'silent') return; // the socket stays open until the client gives up
    const send = () => {
      if (answer === 'not_found') rdapJson(res, 404, { errorCode: 404, title: 'Not Found' });
      else if (answer === 'error') rdapJson(res, 503, { errorCode: 503, title: 'Service Unavailable' });
      else if (answer === 'no_date') rdapJson(res, 200, domainObject(domain, null));
      else {
        const at = answer.registered instanceof Date ? answer.registered.toISOString() : answer.registered;
        rdapJson(res, 200, domainObject(domain, at));
      }
    };
    if (options.delayMs) setTimeout(send, options.delayMs);
    else send();
  };

  const server = createServer(respond);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    bootstrapUrl: `${base}/dns.json`,
    bootstrap,
    count: (domain) => counts.get(domain.toLowerCase()) ?? 0,
    total: () => total,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A date `days` days before now. */
export function daysAgo(days: number, now = Date.now()): Date {
  return new Date(now - days * 86_400_000);
}
