import { type AddressInfo, createServer } from 'node:net';

/** A TCP port free on `host` now (the OS picks it), for a server that must know its port in advance. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const probe = createServer();
  await new Promise<void>((listening) => probe.listen(0, host, () => listening()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((closed) => probe.close(() => closed()));
  return port;
}

/** Whether a server could listen on `port` of `host` now (another may take it before it does). */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const probe = createServer();
  const listening = await new Promise<boolean>((done) => {
    probe.once('error', () => done(false));
    probe.listen(port, host, () => done(true));
  });
  if (listening) await new Promise<void>((closed) => probe.close(() => closed()));
  return listening;
}
