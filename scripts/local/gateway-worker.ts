import cluster from 'node:cluster';
import { accessLogger, logger } from '../../functions/lib/observability.js';
import { localServices } from './local-services.js';
import { startServedGateway, WORKER_OPTIONS_VAR, type WorkerGatewayOptions } from './stack.js';

// One HTTP process of `npm start` with WORKERS above 1 (stack.ts startGatewayWorkers): the gateway
// and every function, like one Lambda container of each, on the port the primary process shares out.
// The primary set up the environment this process inherits (emulator endpoints, secrets, data path).
const options = JSON.parse(process.env[WORKER_OPTIONS_VAR] ?? '{}') as WorkerGatewayOptions;
logger.useFormat(process.env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json');
const level = (process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN') as 'WARN';
logger.setLogLevel(level);
accessLogger.setLogLevel(level);

// A message to a primary that has just stopped (another worker failed to start) fails with EPIPE,
// emitted on this process and on its cluster Worker: the disconnect below ends this one anyway.
process.on('error', () => undefined);
cluster.worker?.on('error', () => undefined);

let gateway: Awaited<ReturnType<typeof startServedGateway>>;
try {
  // This process's own services, like a Lambda container's (its crash point included).
  gateway = await startServedGateway(options, localServices(), (line) => logger.info(line));
} catch (err) {
  // The primary reports it (a port in use, say) and stops: one message, not a trace per worker.
  // The primary may have stopped already, on another worker's failure: then there is no one to tell.
  const { message, code } = err as NodeJS.ErrnoException;
  if (process.connected) process.send?.({ failed: message, code }, undefined, {}, () => process.exit(1));
  else process.exit(1);
  await new Promise(() => undefined);
}
process.send?.('ready');

// Ctrl-C reaches every process of the terminal's group: the primary decides when this one stops.
process.on('SIGINT', () => undefined);
let stopping = false;
const stop = () => {
  if (stopping) return; // SIGTERM, then the primary's exit disconnects this one too
  stopping = true;
  void gateway.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
// The primary is gone (killed): nothing would stop this one.
process.on('disconnect', stop);
