// How many sign-in links may be asked for (issue #17): per e-mail address, so nobody floods a
// person's inbox, and per client IP, so nobody probes many addresses. Fixed 15-minute windows;
// counted whether or not the address belongs to a member, so the limit reveals nothing either.

export const SIGN_IN_WINDOW_MS = 15 * 60_000;

export const SIGN_IN_LIMITS = {
  email: 5,
  ip: 20,
} as const;

export type SignInLimit = keyof typeof SIGN_IN_LIMITS;

export function signInWindow(now: Date): number {
  return Math.floor(now.getTime() / SIGN_IN_WINDOW_MS);
}

/** Whole seconds until the window of `now` ends (Retry-After; at least 1). */
export function secondsToSignInWindowEnd(now: Date): number {
  const end = (signInWindow(now) + 1) * SIGN_IN_WINDOW_MS;
  return Math.max(1, Math.ceil((end - now.getTime()) / 1000));
}
