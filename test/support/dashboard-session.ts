import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestStack } from './local-stack.js';

// Signing in to the dashboard of a test stack as a person would: ask for a link, read it from the
// outbox (SES's local stand-in), open a session with its token.

export interface SignedIn {
  cookie: string;
  csrfToken: string;
  /** Headers of a change (POST, PUT, DELETE) in this session. */
  change(): Record<string, string>;
}

/** The sign-in links the outbox holds for `email`, oldest first. */
export async function linksFor(stack: TestStack, email: string): Promise<string[]> {
  let text = '';
  try {
    text = await readFile(join(stack.dataDir, 'outbox.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind?: string; to?: string; body?: string })
    .filter((mail) => mail.kind === 'sign-in-link' && mail.to === email)
    .map((mail) => /https?:\/\/\S+/.exec(mail.body ?? '')?.[0] ?? '');
}

export function tokenOf(link: string): string {
  return link.split('#/sign-in/')[1] ?? '';
}

export async function requestLink(stack: TestStack, email: string, headers: Record<string, string> = {}) {
  return stack.call('POST', '/v1/dashboard/sign-in', { body: { email }, headers });
}

export async function openSession(stack: TestStack, token: string): Promise<Response> {
  return stack.call('POST', '/v1/dashboard/sessions', { body: { token } });
}

/** Signs `email` (a member) in and answers the session's cookie and CSRF token. */
export async function signIn(stack: TestStack, email: string): Promise<SignedIn> {
  const asked = await requestLink(stack, email);
  if (asked.status !== 202) throw new Error(`sign-in link: ${asked.status} ${await asked.text()}`);
  const link = (await linksFor(stack, email)).at(-1);
  if (!link) throw new Error(`no sign-in link for ${email} in the outbox`);
  const opened = await openSession(stack, tokenOf(link));
  if (opened.status !== 201) throw new Error(`session: ${opened.status} ${await opened.text()}`);
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { csrfToken } = (await opened.json()) as { csrfToken: string };
  return { cookie, csrfToken, change: () => ({ Cookie: cookie, 'X-CSRF-Token': csrfToken }) };
}
