import { clientNetwork } from '../ip/client-network.js';
import type { Mailer } from '../limits/notifier.js';
import { DashboardInputError, SignInLimitError, SignInLinkError } from './dashboard-errors.js';
import { memberEmail } from './member-email.js';
import {
  linkIsLive,
  type Session,
  SIGN_IN_LINK_TTL_MS,
  sameMembership,
  sessionExpiry,
  sessionIsLive,
  sessionNeedsTouch,
} from './session-policy.js';
import type { MemberLookup, SessionStore } from './sessions-port.js';
import {
  carriedOver,
  SIGN_IN_LIMITS,
  SIGN_IN_WINDOW_MS,
  type SignInLimit,
  secondsUntilSignInAllowed,
  signInWindow,
} from './sign-in-limits.js';
import { hashSecret, isWellFormedSecret, newSecret } from './tokens.js';

// Passwordless sign-in (issue #17): an e-mailed one-time link opens a server-side session. The
// answer to a link request is the same for members and strangers; links and sessions are stored
// by hash only; a link is consumed by a conditional delete, so it signs in once.

export interface SignInDeps {
  members: MemberLookup;
  sessions: SessionStore;
  mailer: Mailer;
  now: () => Date;
}

/** The address the app's sign-in route reads the token from: a fragment never reaches a server log. */
export function signInUrl(dashboardUrl: string, token: string): string {
  return `${dashboardUrl}#/sign-in/${token}`;
}

async function count(kind: SignInLimit, subject: string, deps: SignInDeps): Promise<void> {
  const now = deps.now();
  const window = signInWindow(now);
  const previous = await deps.sessions.signInCount(kind, subject, window - 1);
  const room = SIGN_IN_LIMITS[kind] - carriedOver(previous, now);
  // Kept through the next window, whose requests it still weighs on.
  const expiresAt = new Date((window + 2) * SIGN_IN_WINDOW_MS);
  if (room > 0 && (await deps.sessions.countSignIn(kind, subject, window, room, expiresAt))) return;
  const current = await deps.sessions.signInCount(kind, subject, window);
  throw new SignInLimitError(
    kind === 'ip'
      ? 'Too many sign-in links were asked for from this network; try again later.'
      : 'Too many sign-in links were asked for this address; try again later.',
    secondsUntilSignInAllowed(SIGN_IN_LIMITS[kind], previous, current, now),
  );
}

/**
 * Sends a sign-in link to `rawEmail` when it is a member's; answers nothing either way. Each request
 * counts first, member or not, against the client IP's limit, then the address's from this client IP,
 * then the address's from all client IPs (sign-in-limits.ts); one refused counts in none after it.
 * So a stranger asking for a member's address uses up what their own network may ask for it, not
 * what the member's may: only a flood from 6 networks or more reaches the address's overall limit.
 */
export async function requestSignInLink(
  rawEmail: string,
  request: { clientIp: string; dashboardUrl: string },
  deps: SignInDeps,
): Promise<void> {
  const email = memberEmail(rawEmail);
  if (!email) throw new DashboardInputError('email is not a valid e-mail address');
  // An IPv6 client is its /64: its host picks new addresses in it at will.
  const network = clientNetwork(request.clientIp || 'unknown');
  await count('ip', network, deps);
  // Stored by hash, as the address alone is: the pair (JSON, so no address and network run together).
  await count('emailFromIp', hashSecret(JSON.stringify([email, network])), deps);
  await count('email', hashSecret(email), deps);
  const member = await deps.members.getMember(email);
  if (!member) return;
  const token = newSecret();
  const now = deps.now();
  await deps.sessions.putLink(
    hashSecret(token),
    { email, accountId: member.accountId, memberSince: member.createdAt, createdAt: now.toISOString() },
    new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
  );
  const url = signInUrl(request.dashboardUrl, token);
  await deps.mailer.sendMail({
    kind: 'sign-in-link',
    to: email,
    subject: 'Your netintel dashboard sign-in link',
    body:
      `Open this link to sign in to the netintel dashboard:\n\n${url}\n\n` +
      `It works once, within ${SIGN_IN_LINK_TTL_MS / 60_000} minutes. If you did not ask for it, ignore this mail.\n`,
  });
}

export interface OpenedSession {
  /** The cookie's value: the only copy of the session id (its hash is stored). */
  secret: string;
  session: Session;
  expiresAt: Date;
}

/**
 * Exchanges a link's token for a new session: once, within its 15 minutes, for the same membership
 * still (a member removed since, even if added again, is refused).
 */
export async function openSession(token: string, deps: SignInDeps): Promise<OpenedSession> {
  const refused = () =>
    new SignInLinkError('This sign-in link is invalid, used or expired; ask for a new one.');
  if (!isWellFormedSecret(token)) throw refused();
  const link = await deps.sessions.consumeLink(hashSecret(token));
  const now = deps.now();
  if (!link || !linkIsLive(link, now)) throw refused();
  const member = await deps.members.getMember(link.email);
  if (!sameMembership(member, link)) throw refused();
  const secret = newSecret();
  const session: Session = {
    email: link.email,
    accountId: link.accountId,
    memberSince: link.memberSince,
    csrfToken: newSecret(),
    createdAt: now.toISOString(),
    lastSeenAt: now.toISOString(),
  };
  const expiresAt = sessionExpiry(session);
  await deps.sessions.putSession(hashSecret(secret), session, expiresAt);
  return { secret, session, expiresAt };
}

/**
 * The live session a cookie value names, or undefined: unknown, expired, or its person is no longer
 * a member of that account (removal ends access at once). Its last use moves forward at most every
 * SESSION_TOUCH_MS.
 */
export async function resolveSession(
  secret: string | undefined,
  deps: Pick<SignInDeps, 'members' | 'sessions' | 'now'>,
): Promise<(Session & { expiresAt: Date }) | undefined> {
  if (!secret || !isWellFormedSecret(secret)) return undefined;
  const hash = hashSecret(secret);
  const session = await deps.sessions.getSession(hash);
  const now = deps.now();
  if (!session || !sessionIsLive(session, now)) return undefined;
  const member = await deps.members.getMember(session.email);
  // Removal ends access at once, and adding the person back does not revive what they had.
  if (!sameMembership(member, session)) return undefined;
  if (sessionNeedsTouch(session, now)) {
    const touched = { ...session, lastSeenAt: now.toISOString() };
    await deps.sessions.touchSession(hash, now, sessionExpiry(touched));
    return { ...touched, expiresAt: sessionExpiry(touched) };
  }
  return { ...session, expiresAt: sessionExpiry(session) };
}

/** Ends the session a cookie value names (sign out); nothing to do for an unknown one. */
export async function closeSession(
  secret: string | undefined,
  deps: Pick<SignInDeps, 'sessions'>,
): Promise<void> {
  if (secret && isWellFormedSecret(secret)) await deps.sessions.deleteSession(hashSecret(secret));
}
