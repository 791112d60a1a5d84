import * as z from '../../zod.js';
import { HttpError } from '../errors.js';
import { PrincipalSchema } from '../principal.js';
import type { PipelineLogger } from './pipeline-deps.js';
import type { Middleware } from './request-state.js';

/**
 * A key the authorizer refused with 401 and let through for the function to answer, so that the
 * caller reads why (authorizer/handler.ts): API Gateway's own 401 can only say one fixed text. Or
 * a key it could not check because DynamoDB did not answer in time: 503 with Retry-After.
 */
const KeyRefusalSchema = z.object({
  errorCode: z.enum(['invalid_api_key', 'session_required', 'csrf_token_invalid', 'service_unavailable']),
  message: z.string().check(z.minLength(1)),
});

/**
 * The caller the authorizer established, from the event's authorizer context; 401 invalid_api_key
 * with the authorizer's reason for a refused key, or when there is no caller at all (a function
 * invoked around the gateway). Its account goes into every log line.
 */
export function principal(options: {
  route: string;
  logger: Pick<PipelineLogger, 'appendKeys'>;
}): Middleware {
  return {
    name: 'principal',
    before: async (request) => {
      const context = request.event.requestContext?.authorizer ?? {};
      const refusal = KeyRefusalSchema.safeParse(context);
      if (refusal.success) throw new HttpError(refusal.data.errorCode, refusal.data.message);
      const parsed = PrincipalSchema.safeParse(context);
      if (!parsed.success) throw new HttpError('invalid_api_key', 'Missing or invalid API key.');
      request.context.principal = parsed.data;
      options.logger.appendKeys({ route: options.route, accountId: parsed.data.accountId });
    },
  };
}
