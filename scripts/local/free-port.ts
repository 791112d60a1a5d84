import { type AddressInfo, createServer } from 'node:net';

/**
 * Listens on `port` of `host` and closes again: the port it got, or the listen's error (EADDRINUSE
 * for a port another server holds).
 */
async function probe(port: number, host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, host, () => listening());
  });
  const bound = (server.address() as AddressInfo).port;
  await new Promise<void>((closed) => server.close(() => closed()));
  return bound;
}

/** A TCP port free on `host` now (the OS picks it), for a server that must know its port in advance. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return probe(0, host);
}

/**
 * Whether a server could listen on `port` of `host` now (another may take it before it does): false
 * when another server holds it; any other reason it cannot (a host this machine does not have, a
 * port it may not use) is thrown.
 */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  try {
    await probe(port, host);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') return false;
    throw err;
  }
}
