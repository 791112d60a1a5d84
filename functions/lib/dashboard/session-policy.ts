import * as z from '../zod.js';

// How long sign-in links and sessions live (issue #17; docs/dashboard.md). A session ends 12 hours
// after its last use or 7 days after sign-in, whichever comes first; its last use is written at most
// every 5 minutes, so browsing the dashboard costs a read per call, not a write.

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
export const SESSION_TOUCH_MS = 5 * 60_000;

/**
 * `memberSince` is the membership's own `createdAt` when the link or session was made: removing a
 * member and adding them again is a new membership, which no earlier link or session opens.
 */
export const SignInLinkSchema = z.object({
  email: z.string(),
  accountId: z.string(),
  memberSince: z.string(),
  createdAt: z.string(),
});
export type SignInLink = z.infer<typeof SignInLinkSchema>;

export const SessionSchema = z.object({
  email: z.string(),
  accountId: z.string(),
  memberSince: z.string(),
  /** Sent back by the app in X-CSRF-Token on every change (the cookie alone is never enough). */
  csrfToken: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
});
export type Session = z.infer<typeof SessionSchema>;

/** Whether `member` is still the membership a link or session was made for (not removed, not re-added). */
export function sameMembership(
  member: { accountId: string; createdAt: string } | undefined,
  made: { accountId: string; memberSince: string },
): boolean {
  return member?.accountId === made.accountId && member.createdAt === made.memberSince;
}

/**
 * When the session cookie expires in the browser: at the session's absolute end. The idle end moves
 * with every use and is the server's to enforce; a cookie set to it at sign-in would sign a person
 * out 12 hours after sign-in however much they used the dashboard.
 */
export function sessionCookieExpiry(session: Pick<Session, 'createdAt'>): Date {
  return new Date(Date.parse(session.createdAt) + SESSION_MAX_MS);
}

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
