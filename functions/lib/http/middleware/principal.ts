import { HttpError } from '../errors.js';
import { PrincipalSchema } from '../principal.js';
import type { PipelineLogger } from './pipeline-deps.js';
import type { Middleware } from './request-state.js';

/**
 * The caller the authorizer established, from the event's authorizer context; 401 invalid_api_key
 * when there is none (a function invoked around the gateway). Its account goes into every log line.
 */
export function principal(options: {
  route: string;
  logger: Pick<PipelineLogger, 'appendKeys'>;
}): Middleware {
  return {
    name: 'principal',
    before: async (request) => {
      const parsed = PrincipalSchema.safeParse(request.event.requestContext?.authorizer ?? {});
      if (!parsed.success) throw new HttpError('invalid_api_key', 'Missing or invalid API key.');
      request.context.principal = parsed.data;
      options.logger.appendKeys({ route: options.route, accountId: parsed.data.accountId });
    },
  };
}
