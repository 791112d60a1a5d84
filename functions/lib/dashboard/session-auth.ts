import { sessionSecretOf } from './session-cookie.js';
import { resolveSession, type SignInDeps } from './sign-in.js';
import { sameToken } from './tokens.js';

// What the session authorizer decides for a call of a dashboard route (or of a list-job route
// without a key): the session's account and person, or why not. A change (any method but GET and
// HEAD) must also carry the session's CSRF token in X-CSRF-Token: SameSite=Strict keeps other
// sites' requests from carrying the cookie, and the token keeps out whatever slips past that.

export const CSRF_HEADER = 'x-csrf-token';

export type SessionDecision =
  | { ok: true; accountId: string; email: string; csrfToken: string; expiresAt: Date }
  | { ok: false; code: 'session_required' | 'csrf_token_invalid'; message: string };

export const SESSION_MESSAGES = {
  none: 'Sign in to the dashboard first: this call needs a live session.',
  csrf: 'This change needs the X-CSRF-Token header of the current session.',
} as const;

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** `headers` with lower-case names. */
export async function decideSession(
  request: { method: string; headers: Record<string, string> },
  deps: Pick<SignInDeps, 'members' | 'sessions' | 'now'>,
): Promise<SessionDecision> {
  const session = await resolveSession(sessionSecretOf(request.headers.cookie), deps);
  if (!session) return { ok: false, code: 'session_required', message: SESSION_MESSAGES.none };
  if (!SAFE_METHODS.has(request.method.toUpperCase())) {
    const sent = request.headers[CSRF_HEADER] ?? '';
    if (!sameToken(sent, session.csrfToken)) {
      return { ok: false, code: 'csrf_token_invalid', message: SESSION_MESSAGES.csrf };
    }
  }
  return {
    ok: true,
    accountId: session.accountId,
    email: session.email,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
  };
}
