import type { Session, SignInLink } from './session-policy.js';
import type { SignInLimit } from './sign-in-limits.js';

/** Where sign-in links, sessions and sign-in counters live (the Sessions table). */
export interface SessionStore {
  putLink(linkHash: string, link: SignInLink, expiresAt: Date): Promise<void>;
  /** Deletes the link and answers what it held: a link can be used once, even by racing calls. */
  consumeLink(linkHash: string): Promise<SignInLink | undefined>;
  putSession(sessionHash: string, session: Session, expiresAt: Date): Promise<void>;
  getSession(sessionHash: string): Promise<Session | undefined>;
  /** Moves the last use forward (a write only when it is later than the stored one). */
  touchSession(sessionHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void>;
  deleteSession(sessionHash: string): Promise<void>;
  /** The sign-in requests counted in `window` (0 for none). */
  signInCount(kind: SignInLimit, subject: string, window: number): Promise<number>;
  /** Counts one sign-in request against `limit` in `window`: false when the limit is reached. */
  countSignIn(
    kind: SignInLimit,
    subject: string,
    window: number,
    limit: number,
    expiresAt: Date,
  ): Promise<boolean>;
}

export interface Member {
  accountId: string;
  email: string;
  createdAt: string;
}

/** Who may sign in to which account (the Accounts table). */
export interface MemberLookup {
  getMember(email: string): Promise<Member | undefined>;
}
