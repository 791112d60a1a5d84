import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

// One structured JSON logger and one EMF metrics emitter per container (Powertools), wired into
// every handler by the factory in http/define-handler.ts.
export const logger = new Logger({ serviceName: 'netintel' });
export const metrics = new Metrics({ namespace: 'netintel', serviceName: 'netintel' });
