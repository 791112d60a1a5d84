import { DependencyUnavailableError, HttpError } from '../errors.js';
import { errorResult } from '../reply.js';
import type { PipelineLogger } from './pipeline-deps.js';
import type { Middleware } from './request-state.js';

/**
 * Every failure becomes `{error, message}` (docs/api.md: Errors): a typed HttpError with its own
 * status and headers (Retry-After), anything else a 500 `internal_error` whose cause is logged and
 * never reaches the body. A dependency that did not answer in time (503) is logged with the SDK's
 * error, which says which call and which bound.
 */
export function errorResponse(options: { route: string; logger: Pick<PipelineLogger, 'error'> }): Middleware {
  return {
    name: 'errorResponse',
    onError: async (request) => {
      const err = request.error;
      if (err instanceof HttpError) {
        if (err instanceof DependencyUnavailableError) {
          options.logger.error('a dependency did not answer in time', {
            route: options.route,
            error: (err.cause ?? err) as Error,
          });
        }
        request.response = errorResult(err.status, err.toBody(), err.headers);
        return;
      }
      options.logger.error('unhandled error', { route: options.route, error: err as Error });
      request.response = errorResult(500, {
        error: 'internal_error',
        message: 'An unexpected error occurred.',
      });
    },
  };
}
