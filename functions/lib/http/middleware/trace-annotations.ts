import type { TraceAnnotations } from '../../aws/tracing.js';
import { HttpError } from '../errors.js';
import type { Middleware, PipelineRequest } from './request-state.js';

/** X-Ray annotation keys (letters, digits and underscores only), searchable in the X-Ray console. */
export const TRACE_ANNOTATION = { route: 'route', account: 'accountId', errorCode: 'errorCode' } as const;

/**
 * Annotates the invocation's trace (aws/tracing.ts): the route before anything runs; the account once
 * the principal is known (its id, which is not secret; never a key); on failure the stable error code
 * the caller gets (`internal_error` for anything unexpected), never the message or the response.
 * Right below the tracer's own middleware, so that every annotation lands on its handler subsegment
 * before that closes.
 */
export function traceAnnotations(options: { route: string; annotations: TraceAnnotations }): Middleware {
  const { route, annotations } = options;
  const annotateAccount = (request: PipelineRequest) => {
    const accountId = request.context.principal?.accountId;
    if (accountId) annotations.annotate(TRACE_ANNOTATION.account, accountId);
  };
  return {
    name: 'traceAnnotations',
    before: async () => {
      annotations.annotate(TRACE_ANNOTATION.route, route);
    },
    after: async (request) => {
      annotateAccount(request);
    },
    onError: async (request) => {
      annotateAccount(request);
      const code = request.error instanceof HttpError ? request.error.code : 'internal_error';
      annotations.annotate(TRACE_ANNOTATION.errorCode, code);
    },
  };
}
