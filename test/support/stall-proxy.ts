import { connect, createServer, type Server, type Socket } from 'node:net';

// A TCP proxy on 127.0.0.1 in front of a local emulator that can stop answering on command: a hung
// dependency as AWS can have one. Stalled, it still accepts connections, and takes whatever a
// client sends, but forwards nothing either way, so a call neither fails nor gets an answer until
// its own bound cuts it (functions/lib/aws/call-bounds.ts). Healed, it forwards again; connections
// that lost bytes while stalled are closed (their HTTP exchange is broken), the others carry on.

export interface StallProxy {
  /** `http://127.0.0.1:<port>`: the emulator's endpoint for the stack's clients. */
  url: string;
  /** Stop forwarding, on open connections and new ones. */
  stall(): void;
  /**
   * Stop forwarding from the first request that holds `marker` on (that request included): a
   * dependency that hangs in the middle of a call, after the calls before it were answered.
   */
  stallOn(marker: string): void;
  /** Forward again. */
  heal(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes were dropped while stalled: the exchange on this connection cannot continue. */
  broken: boolean;
}

export async function startStallProxy(target: string): Promise<StallProxy> {
  const { hostname, port } = new URL(target);
  let stalled = false;
  let marker: string | undefined;
  const pairs = new Set<Pair>();

  const forward = (pair: Pair, from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (marker !== undefined && from === pair.client && chunk.includes(marker)) stalled = true;
      if (stalled) pair.broken = true;
      else to.write(chunk);
    });

  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    const pair: Pair = { client, upstream, broken: false };
    pairs.add(pair);
    forward(pair, client, upstream);
    forward(pair, upstream, client);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    stall() {
      stalled = true;
    },
    stallOn(text) {
      marker = text;
    },
    heal() {
      stalled = false;
      marker = undefined;
      for (const pair of pairs) {
        if (!pair.broken) continue;
        pair.client.destroy();
        pair.upstream.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) {
          pair.client.destroy();
          pair.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
