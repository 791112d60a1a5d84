import * as z from '../zod.js';

// What the session authorizer learned about a dashboard call (authorizer context: strings). Both
// schemas are built on their first use (z.lazy): every function carries the session pipeline (one
// handler factory, http/define-handler.ts), and only the dashboard's routes parse a session.
export const SessionPrincipalSchema = z.lazy(() =>
  z.object({
    accountId: z.string().check(z.minLength(1)),
    email: z.string().check(z.minLength(1)),
    csrfToken: z.string().check(z.minLength(1)),
    sessionExpiresAt: z.string().check(z.minLength(1)),
  }),
);
export type SessionPrincipal = z.infer<typeof SessionPrincipalSchema>;

/**
 * A call the session authorizer let through for the function to refuse with its reason, or to
 * answer 503 service_unavailable when the session could not be read in time.
 */
export const SessionRefusalSchema = z.lazy(() =>
  z.object({
    errorCode: z.enum(['session_required', 'csrf_token_invalid', 'service_unavailable']),
    message: z.string().check(z.minLength(1)),
  }),
);
