import * as z from '../zod.js';

// How long sign-in links and sessions live (issue #17; docs/dashboard.md). A session ends 12 hours
// after its last use or 7 days after sign-in, whichever comes first; its last use is written at most
// every 5 minutes, so browsing the dashboard costs a read per call, not a write.

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
export const SESSION_TOUCH_MS = 5 * 60_000;

export const SignInLinkSchema = z.object({
  email: z.string(),
  accountId: z.string(),
  createdAt: z.string(),
});
export type SignInLink = z.infer<typeof SignInLinkSchema>;

export const SessionSchema = z.object({
  email: z.string(),
  accountId: z.string(),
  /** Sent back by the app in X-CSRF-Token on every change (the cookie alone is never enough). */
  csrfToken: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
});
export type Session = z.infer<typeof SessionSchema>;

export function linkIsLive(link: SignInLink, now: Date): boolean {
  return now.getTime() < Date.parse(link.createdAt) + SIGN_IN_LINK_TTL_MS;
}

/** When the session ends unless it is used again: idle limit, capped by the absolute one. */
export function sessionExpiry(session: Session): Date {
  return new Date(
    Math.min(
      Date.parse(session.lastSeenAt) + SESSION_IDLE_MS,
      Date.parse(session.createdAt) + SESSION_MAX_MS,
    ),
  );
}

export function sessionIsLive(session: Session, now: Date): boolean {
  return now.getTime() < sessionExpiry(session).getTime();
}

/** Whether this use should move the session's last use forward (at most every SESSION_TOUCH_MS). */
export function sessionNeedsTouch(session: Session, now: Date): boolean {
  return now.getTime() - Date.parse(session.lastSeenAt) >= SESSION_TOUCH_MS;
}
