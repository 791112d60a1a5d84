import type { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { tracingEnabled } from '../runtime/config.js';

// X-Ray traces (docs/architecture.md, Tracing) through Powertools Tracer: one tracer per container; every AWS SDK client
// captured where it is created (traceClient), so its calls are subsegments; each invocation's
// handler subsegment opened and closed by captureLambdaHandler (traceInvocation); DNS queries as
// subsegments through the decorators of runtime/dns-tracing.ts.
//
// Only in Lambda (config.ts tracingEnabled). Locally and in tests there is no tracer and nothing of
// X-Ray is loaded: importing aws-xray-sdk-core turns on cls-hooked's async hooks for the whole
// process, which made a promise-heavy loop ten times slower. Hence the dynamic import: esbuild puts
// the Tracer and the X-Ray SDK in chunks of their own (infra/bundling.ts), read only where tracing is on.
//
// Responses and errors are never recorded (they can hold email addresses): the stack sets
// POWERTOOLS_TRACER_CAPTURE_RESPONSE and POWERTOOLS_TRACER_CAPTURE_ERROR to false
// (infra/constructs/netintel-function.ts) and captureLambdaHandler is told the same. Failures are
// marked by their stable error code instead (http/middleware/trace-annotations.ts).

async function createTracer(): Promise<Tracer> {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  return new Tracer({ serviceName: 'netintel' });
}

/** The container's tracer; undefined where tracing is off. */
export const tracer: Tracer | undefined = tracingEnabled() ? await createTracer() : undefined;

/**
 * Every AWS SDK client goes through here when it is created (test/unit/architecture/sdk-clients.test.ts):
 * its calls become subsegments named after the service, with the operation and table or queue.
 */
export function traceClient<C>(client: C): C {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/**
 * The middleware that opens the invocation's `## handler` subsegment (cold start and service
 * annotations) and closes it, first in every handler's chain; none where tracing is off.
 */
export function traceInvocation(): ReturnType<typeof captureLambdaHandler>[] {
  return tracer ? [captureLambdaHandler(tracer, { captureResponse: false })] : [];
}

/** X-Ray annotations (indexed, searchable) on the invocation's handler subsegment. */
export interface TraceAnnotations {
  annotate(key: string, value: string | number | boolean): void;
}

/** Annotations on the current invocation; undefined where tracing is off. */
export const traceAnnotations: TraceAnnotations | undefined = tracer && {
  annotate: (key, value) => tracer?.putAnnotation(key, value),
};
