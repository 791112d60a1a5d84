import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { memberEmail } from '../../../functions/lib/dashboard/member-email.js';
import { sessionSecretOf } from '../../../functions/lib/dashboard/session-cookie.js';
import {
  linkIsLive,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  SESSION_TOUCH_MS,
  type Session,
  SIGN_IN_LINK_TTL_MS,
  sameMembership,
  sessionExpiry,
  sessionIsLive,
  sessionNeedsTouch,
} from '../../../functions/lib/dashboard/session-policy.js';
import {
  carriedOver,
  SIGN_IN_WINDOW_MS,
  secondsUntilSignInAllowed,
  signInWindow,
} from '../../../functions/lib/dashboard/sign-in-limits.js';
import {
  hashSecret,
  isWellFormedSecret,
  newSecret,
  sameToken,
} from '../../../functions/lib/dashboard/tokens.js';

// The dashboard's session rules as pure functions: expiry (12 h idle, 7 d absolute), the touch
// interval, link lifetime, cookie reading, member addresses, tokens.

const at = (ms: number) => new Date(Date.UTC(2026, 10, 1) + ms);
const session = (createdMs: number, lastSeenMs: number): Session => ({
  email: 'a@shop.example',
  accountId: 'acct_1',
  memberSince: at(-1000).toISOString(),
  csrfToken: newSecret(),
  createdAt: at(createdMs).toISOString(),
  lastSeenAt: at(lastSeenMs).toISOString(),
});

describe('session expiry', () => {
  test('a session ends at the earlier of 12 h after its last use and 7 days after sign-in', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: SESSION_MAX_MS * 2 }),
        fc.nat({ max: SESSION_MAX_MS * 2 }),
        (lastSeen, probe) => {
          const s = session(0, lastSeen);
          const end = Math.min(lastSeen + SESSION_IDLE_MS, SESSION_MAX_MS);
          expect(sessionExpiry(s).getTime()).toBe(at(end).getTime());
          expect(sessionIsLive(s, at(probe))).toBe(probe < end);
        },
      ),
    );
  });

  test('its last use is written at most every 5 minutes', () => {
    const s = session(0, 0);
    expect(sessionNeedsTouch(s, at(SESSION_TOUCH_MS - 1))).toBe(false);
    expect(sessionNeedsTouch(s, at(SESSION_TOUCH_MS))).toBe(true);
  });

  test('a sign-in link works for 15 minutes', () => {
    const link = {
      email: 'a@shop.example',
      accountId: 'acct_1',
      memberSince: at(-1000).toISOString(),
      createdAt: at(0).toISOString(),
    };
    expect(linkIsLive(link, at(SIGN_IN_LINK_TTL_MS - 1))).toBe(true);
    expect(linkIsLive(link, at(SIGN_IN_LINK_TTL_MS))).toBe(false);
  });

  test('a link or session opens only the membership it was made for: not after removal, nor once added again', () => {
    const made = { accountId: 'acct_1', memberSince: at(0).toISOString() };
    expect(sameMembership({ accountId: 'acct_1', createdAt: at(0).toISOString() }, made)).toBe(true);
    expect(sameMembership(undefined, made)).toBe(false);
    expect(sameMembership({ accountId: 'acct_1', createdAt: at(5000).toISOString() }, made)).toBe(false);
    expect(sameMembership({ accountId: 'acct_2', createdAt: at(0).toISOString() }, made)).toBe(false);
  });

  test('the sign-in limit counts the last 15 minutes: no second burst at a window edge, and its Retry-After', () => {
    const W = SIGN_IN_WINDOW_MS;
    expect(signInWindow(at(0))).toBe(signInWindow(at(W - 1)));
    // 5 requests of the window before still weigh 5 just after its edge, 3 halfway through this one.
    expect(carriedOver(5, new Date(W + 1000))).toBe(5);
    expect(carriedOver(5, new Date(W + W / 2))).toBe(3);
    // Filled in the window's last second: not at its edge (fixed windows said 1 s), but once a fifth
    // of those 5 have slid out of the last 15 minutes.
    expect(secondsUntilSignInAllowed(5, 0, 5, new Date(W - 500))).toBe(Math.ceil((W / 5 + 500) / 1000));
    // 5 before the edge, none since: one more fits once a fifth of the previous window has slid
    // out (at W + W/5), not at the edge, where fixed windows let 5 more through at once.
    expect(secondsUntilSignInAllowed(5, 5, 0, new Date(W + 1000))).toBe((W / 5 - 1000) / 1000);
    // 2 before, 3 now, limit 5: one more fits once half of the previous window has slid out.
    expect(secondsUntilSignInAllowed(5, 2, 3, new Date(W + 1000))).toBe((W / 2 - 1000) / 1000);
    // 5 now, limit 5: not in this window; in the next, once a fifth of this one has slid out.
    expect(secondsUntilSignInAllowed(5, 0, 5, new Date(W + 1000))).toBe((W - 1000 + W / 5) / 1000);
  });
});

describe('cookies, addresses and tokens', () => {
  test('exactly one session cookie is read; two (a planted second) are trusted neither', () => {
    const secret = newSecret();
    expect(sessionSecretOf(`a=1; netintel_session=${secret}; b=2`)).toBe(secret);
    expect(sessionSecretOf(`netintel_session=${secret}; netintel_session=${newSecret()}`)).toBeUndefined();
    expect(sessionSecretOf(undefined)).toBeUndefined();
    expect(sessionSecretOf('garbage;;;=')).toBeUndefined();
  });

  test("a member's address is one form, whatever the case and spaces; junk is none", () => {
    expect(memberEmail(' Jane.Doe@Shop.EXAMPLE ')).toBe('jane.doe@shop.example');
    expect(memberEmail('not an address')).toBeNull();
    fc.assert(fc.property(fc.string(), (s) => expect(() => memberEmail(s)).not.toThrow()));
  });

  test('secrets are 256-bit base64url, stored as SHA-256, compared in constant time', () => {
    const s = newSecret();
    expect(isWellFormedSecret(s)).toBe(true);
    expect(isWellFormedSecret(`${s}x`)).toBe(false);
    expect(hashSecret(s)).toMatch(/^[0-9a-f]{64}$/);
    expect(sameToken(s, s)).toBe(true);
    expect(sameToken(s, newSecret())).toBe(false);
    expect(sameToken(s, '')).toBe(false);
  });
});
