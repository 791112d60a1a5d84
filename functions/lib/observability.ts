import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

// One structured JSON logger and one EMF metrics emitter per container (Powertools), wired into
// every handler by the factory in http/define-handler.ts.
export const logger = new Logger({ serviceName: 'netintel' });

// Created on first use: Powertools reads POWERTOOLS_METRICS_DISABLED when the emitter is built,
// and the local server sets it after this module is loaded.
let emitter: Metrics | undefined;
export function metrics(): Metrics {
  emitter ??= new Metrics({ namespace: 'netintel', serviceName: 'netintel' });
  return emitter;
}
