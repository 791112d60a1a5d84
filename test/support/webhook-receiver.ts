import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A webhook receiver on 127.0.0.1 for the tests: it records every delivery (headers and the raw
// body) and answers as scripted: a status per delivery in turn (the last one repeats), or `hang`,
// holding the request open until release(). Waiting for a delivery is waiting on a promise, never a
// sleep.

export interface Delivery {
  headers: IncomingMessage['headers'];
  body: string;
  /** The event's id and type (the body parsed). */
  event: { id: string; type: string; data: { object: Record<string, unknown> } };
}

export type Answer = number | 'hang';

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Resolves with the `n`th delivery (1-based) once it has arrived. */
  nth(n: number): Promise<Delivery>;
  /** Answers every held (hung) request with `status`, or drops their connections. */
  release(status?: number): void;
  /** Requests held open right now. */
  held(): number;
  close(): Promise<void>;
}

export async function startReceiver(script: readonly Answer[] = [200]): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const waiting = new Map<number, (d: Delivery) => void>();
  const hung = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery: Delivery = { headers: req.headers, body, event: JSON.parse(body) as Delivery['event'] };
      deliveries.push(delivery);
      const answer = script[Math.min(deliveries.length, script.length) - 1] ?? 200;
      waiting.get(deliveries.length)?.(delivery);
      if (answer === 'hang') {
        hung.add(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'receiver says no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    nth: (n) =>
      deliveries[n - 1]
        ? Promise.resolve(deliveries[n - 1]!)
        : new Promise((resolve) => waiting.set(n, resolve)),
    release(status) {
      for (const res of hung) {
        if (status === undefined) res.socket?.destroy();
        else res.writeHead(status).end();
      }
      hung.clear();
    },
    held: () => hung.size,
    async close() {
      for (const res of hung) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
