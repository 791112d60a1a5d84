import * as z from '../zod.js';

// What the session authorizer learned about a dashboard call (authorizer context: strings).
export const SessionPrincipalSchema = z.object({
  accountId: z.string().check(z.minLength(1)),
  email: z.string().check(z.minLength(1)),
  csrfToken: z.string().check(z.minLength(1)),
  sessionExpiresAt: z.string().check(z.minLength(1)),
});
export type SessionPrincipal = z.infer<typeof SessionPrincipalSchema>;

/**
 * A call the session authorizer let through for the function to refuse with its reason, or to
 * answer 503 service_unavailable when the session could not be read in time.
 */
export const SessionRefusalSchema = z.object({
  errorCode: z.enum(['session_required', 'csrf_token_invalid', 'service_unavailable']),
  message: z.string().check(z.minLength(1)),
});
