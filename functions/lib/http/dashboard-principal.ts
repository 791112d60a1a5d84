import * as z from 'zod';

// What the session authorizer learned about a dashboard call (authorizer context: strings).
export const SessionPrincipalSchema = z.object({
  accountId: z.string().min(1),
  email: z.string().min(1),
  csrfToken: z.string().min(1),
  sessionExpiresAt: z.string().min(1),
});
export type SessionPrincipal = z.infer<typeof SessionPrincipalSchema>;

/**
 * A call the session authorizer let through for the function to refuse with its reason, or to
 * answer 503 service_unavailable when the session could not be read in time.
 */
export const SessionRefusalSchema = z.object({
  errorCode: z.enum(['session_required', 'csrf_token_invalid', 'service_unavailable']),
  message: z.string().min(1),
});
