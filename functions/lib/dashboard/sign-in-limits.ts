// How many sign-in links may be asked for (issue #17). Three limits, each counted in 15-minute windows:
// - emailFromIp, 5 per address from one client IP: what one network may ask for one address. A
//   stranger who asks for a member's address again and again uses up only their own network's share;
//   the member asking from theirs is not locked out by it.
// - email, 30 per address from all client IPs together: so no flood from many networks fills a
//   person's inbox. Only requests admitted by the two limits above count here, so one network
//   alone never reaches it (it takes 6 networks each at its 5 per 15 minutes).
// - ip, 20 per client IP whatever the addresses: so nobody probes many addresses.
// A client IP is an IPv4 address, or an IPv6 address's /64 (ip/client-network.ts): an IPv6 host
// picks new addresses in its /64 at will, so each address its own share would be no limit at all.
// A request is admitted only while the count of the last 15 minutes stays under the limit: the
// current window's count plus the previous window's, weighted by the share of it still inside the
// last 15 minutes (rounded up). So the edge of a window is no door to a second burst (5 requests at
// 09:59 and 5 more at 10:00 were all admitted with fixed windows). Counted whether or not the address
// belongs to a member, so the limits reveal nothing either.

export const SIGN_IN_WINDOW_MS = 15 * 60_000;

export const SIGN_IN_LIMITS = {
  emailFromIp: 5,
  email: 30,
  ip: 20,
} as const;

export type SignInLimit = keyof typeof SIGN_IN_LIMITS;

export function signInWindow(now: Date): number {
  return Math.floor(now.getTime() / SIGN_IN_WINDOW_MS);
}

/** The part of the window of `now` gone by, from 0 to 1. */
function elapsed(now: Date): number {
  return (now.getTime() - signInWindow(now) * SIGN_IN_WINDOW_MS) / SIGN_IN_WINDOW_MS;
}

/** Requests of the previous window (`previous` of them) still counted at `now`. */
export function carriedOver(previous: number, now: Date): number {
  return Math.ceil(previous * (1 - elapsed(now)));
}

/**
 * The fraction of a window from which one more request fits under `limit`, with `previous` and
 * `current` the counts of the window before and of this one; Infinity when none fits in this window.
 */
function fitsFrom(limit: number, previous: number, current: number): number {
  const room = limit - current - 1;
  if (room < 0) return Number.POSITIVE_INFINITY;
  if (previous <= room) return 0;
  return 1 - room / previous;
}

/**
 * Whole seconds until one more request would be admitted (Retry-After; at least 1), given the counts
 * of the window before `now`'s and of `now`'s own.
 */
export function secondsUntilSignInAllowed(
  limit: number,
  previous: number,
  current: number,
  now: Date,
): number {
  const start = signInWindow(now) * SIGN_IN_WINDOW_MS;
  const here = fitsFrom(limit, previous, current);
  // In this window, once enough of the previous one has slid out; else in the next one.
  const at =
    here < 1
      ? start + here * SIGN_IN_WINDOW_MS
      : start + (1 + fitsFrom(limit, current, 0)) * SIGN_IN_WINDOW_MS;
  return Math.max(1, Math.ceil((at - now.getTime()) / 1000));
}
