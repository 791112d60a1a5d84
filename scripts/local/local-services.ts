import type { Clock } from '../../functions/lib/clock.js';
import { type Checkpoint, CRASH_POINTS, type CrashPoint } from '../../functions/lib/jobs/job-creation.js';
import { environmentConfig } from '../../functions/lib/runtime/config.js';
import { createServices, type Services } from '../../functions/lib/runtime/services.js';
import { localUrl } from './api-gateway.js';
import { freePort } from './free-port.js';

// The service instances of the local stack's processes (functions/lib/runtime/services.ts): this
// process's, each worker process's, and the port they serve on.

/**
 * NETINTEL_CRASH_AT=<point>: the process kills itself (SIGKILL) when a job creation reaches that
 * point (jobs/job-creation.ts CRASH_POINTS), so the crash tests stop it exactly there. Only the
 * local tooling gives its services this checkpoint; a Lambda's is a no-op.
 */
export function crashCheckpoint(value: string | undefined): Checkpoint {
  if (!value) return () => undefined;
  if (!(CRASH_POINTS as readonly string[]).includes(value)) {
    throw new Error(`NETINTEL_CRASH_AT must be one of ${CRASH_POINTS.join(', ')}`);
  }
  const at = value as CrashPoint;
  return (point) => {
    if (point === at) process.kill(process.pid, 'SIGKILL');
  };
}

/**
 * The services of a local process's functions, from its environment as the stack set it up
 * (emulator endpoints, secrets, data path): this process's, and each worker process's own.
 */
export function localServices(clock?: Clock): Services {
  return createServices(environmentConfig(), {
    checkpoint: crashCheckpoint(process.env.NETINTEL_CRASH_AT),
    ...(clock ? { clock } : {}),
    ...(process.env.NETINTEL_LOOPBACK_ONLY === 'true' ? { connectGuard: loopbackOnly } : {}),
  });
}

/**
 * NETINTEL_LOOPBACK_ONLY=true (the tests' stacks): outgoing webhook connections to anything but
 * 127.0.0.0/8 and ::1 throw, whatever the destination guard decided: no test can reach out.
 */
function loopbackOnly(address: string): void {
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return;
  throw Object.assign(new Error(`the tests connect to loopback only, not ${address}`), {
    code: 'ELOOPBACKONLY',
  });
}

/** How often a port another process took between its probe and the listen is probed again. */
const PORT_TRIES = 3;

/**
 * The gateway on options.port, or on a free port, with the services its functions run on. Sign-in
 * links point at this server's dashboard (never at a request's Host), so the services are built
 * once the port is known, with DASHBOARD_URL in their configuration. A free port is found by a
 * probe (the workers of `npm start` share one, so it must be known before they listen); another
 * process may take it before the gateway listens, and then another port is probed.
 */
export async function serveOnAPort<G>(
  options: { port?: number; host?: string; clock?: Clock },
  start: (port: number, services: Services) => Promise<G>,
): Promise<{ gateway: G; services: Services }> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port || (await freePort(options.host));
    process.env.DASHBOARD_URL = `${localUrl(options.host, port)}/dashboard/`;
    const services = localServices(options.clock);
    try {
      return { gateway: await start(port, services), services };
    } catch (err) {
      const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (options.port || !taken || attempt >= PORT_TRIES) throw err;
    }
  }
}
