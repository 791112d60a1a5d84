import { fromApiGatewayEvent } from '../request.js';
import type { Middleware } from './request-state.js';

/** The API Gateway event, normalised once into the HttpRequest that validation and the route read. */
export function httpRequest(): Middleware {
  return {
    name: 'httpRequest',
    before: async (request) => {
      request.context.httpRequest = fromApiGatewayEvent(request.event);
    },
  };
}
