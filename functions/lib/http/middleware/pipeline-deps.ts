import type { Logger } from '@aws-lambda-powertools/logger';
import type { TraceAnnotations } from '../../aws/tracing.js';
import type { Meter } from '../../billing/meters.js';
import type { Clock } from '../../clock.js';
import type { UsageCounter } from '../../limits/admission.js';
import type { Leases } from '../../limits/leased-admission.js';
import type { NoticeStores } from '../../limits/usage-notices.js';
import type { Services } from '../../runtime/services.js';

/** What the pipeline's middlewares log with: the Powertools logger, or a fake in tests. */
export type PipelineLogger = Pick<Logger, 'error' | 'appendKeys'>;

/** The metrics the pipeline emits (EMF in Lambda). */
export interface PipelineMetrics {
  /** Usage events: units billed on `meter` for an account (docs/api.md: Limits, billing and usage notices). */
  usageEvents(accountId: string, meter: Meter, units: number): void;
  /** A usage notice that failed (the stack alarms on it). */
  noticeFailed(): void;
}

/**
 * Everything the request pipeline reaches outside itself, passed in once: the production
 * `defineHandler` binds a service instance's (define-handler.ts pipelineDeps), a test passes fakes.
 */
export interface PipelineDeps {
  /** The instance the route's own code runs on (its input, reserve and run get it). */
  services: Services;
  counter: UsageCounter;
  /** The container's quota leases (limits/leases.ts); without them every call is counted on its own. */
  leases?: Leases;
  clock: Clock;
  notices: NoticeStores;
  /** The Powertools logger: the pipeline injects the Lambda context into it. */
  logger: Logger;
  metrics: PipelineMetrics;
  /** X-Ray annotations of each invocation (trace-annotations.ts); absent where tracing is off. */
  annotations?: TraceAnnotations;
}
