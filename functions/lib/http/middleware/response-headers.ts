import { rateLimitHeaders } from '../rate-limit-headers.js';
import type { PipelineLogger } from './pipeline-deps.js';
import type { Middleware, PipelineRequest } from './request-state.js';

/**
 * Headers every answer of a route carries, errors included (it sits outside error-response.ts):
 * X-Request-Id, API Gateway's id of the request, which is also on every log line of the call
 * (`correlation_id`) and in the API's access log, so a client quoting it finds the call; and,
 * once admission counted the call, the minute window's X-RateLimit-* (rate-limit-headers.ts); and
 * `Cache-Control: no-store` unless the route set its own: an answer is about one caller (a visitor's
 * location under a URL every visitor of a page shares, `?key=`), so no browser or proxy keeps it.
 */
export function responseHeaders(options: { logger: Pick<PipelineLogger, 'appendKeys'> }): Middleware {
  const add = (request: PipelineRequest) => {
    if (!request.response) return;
    const requestId = request.event.requestContext?.requestId;
    const minute = request.context.minute;
    const own = Object.keys(request.response.headers ?? {}).some((h) => h.toLowerCase() === 'cache-control');
    request.response.headers = {
      ...(own ? {} : { 'Cache-Control': 'no-store' }),
      ...request.response.headers,
      ...(minute ? rateLimitHeaders(minute) : {}),
      ...(requestId ? { 'X-Request-Id': requestId } : {}),
    };
  };
  return {
    name: 'responseHeaders',
    before: async (request) => {
      const requestId = request.event.requestContext?.requestId;
      // Powertools' own key for it (Logger.setCorrelationId); reset after the call (resetKeys).
      if (requestId) options.logger.appendKeys({ correlation_id: requestId });
    },
    after: async (request) => add(request),
    onError: async (request) => add(request),
  };
}
