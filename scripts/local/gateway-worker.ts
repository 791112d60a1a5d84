import { accessLogger, logger, setLogFormat } from '../../functions/lib/observability.js';
import {
  installCrashPoint,
  startServedGateway,
  WORKER_OPTIONS_VAR,
  type WorkerGatewayOptions,
} from './stack.js';

// One HTTP process of `npm start` with WORKERS above 1 (stack.ts startGatewayWorkers): the gateway
// and every function, like one Lambda container of each, on the port the primary process shares out.
// The primary set up the environment this process inherits (emulator endpoints, secrets, data path).
const options = JSON.parse(process.env[WORKER_OPTIONS_VAR] ?? '{}') as WorkerGatewayOptions;
setLogFormat(process.env.LOG_FORMAT === 'pretty' ? 'pretty' : 'json');
const level = (process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN') as 'WARN';
logger.setLogLevel(level);
accessLogger.setLogLevel(level);
installCrashPoint(process.env.NETINTEL_CRASH_AT);

const gateway = await startServedGateway(options, (line) => logger.info(line));
process.send?.('ready');

// Ctrl-C reaches every process of the terminal's group: the primary decides when this one stops.
process.on('SIGINT', () => undefined);
const stop = () => {
  void gateway.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
// The primary is gone (killed): nothing would stop this one.
process.on('disconnect', stop);
