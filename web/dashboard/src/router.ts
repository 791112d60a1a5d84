// Hash routes (#/keys): the app is one static file behind CloudFront and the local server, so the
// path never changes and a reload or a shared link opens the same page. Pure: no DOM here.

export const PAGES = [
  'overview',
  'keys',
  'hostnames',
  'jobs',
  'rules',
  'webhooks',
  'notices',
  'data',
] as const;
export type Page = (typeof PAGES)[number];

export type Route =
  | { page: Page; jobId?: string }
  | { page: 'sign-in'; token: string }
  /**
   * An address that cannot be read: a % escape cut short or mangled (`#/%`, `#/jobs/%E0%A4%A`), as
   * a link broken across lines in a mail or a chat is. `signInLink` when it was a sign-in link.
   */
  | { page: 'invalid'; signInLink: boolean };

export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  let parts: string[];
  try {
    parts = raw.map(decodeURIComponent);
  } catch {
    // decodeURIComponent throws a URIError on a malformed escape.
    return { page: 'invalid', signInLink: raw[0] === 'sign-in' };
  }
  const [first, second] = parts;
  if (first === 'sign-in' && second) return { page: 'sign-in', token: second };
  if (first === 'jobs' && second) return { page: 'jobs', jobId: second };
  return { page: (PAGES as readonly string[]).includes(first ?? '') ? (first as Page) : 'overview' };
}

export function href(page: Page, jobId?: string): string {
  return jobId ? `#/${page}/${encodeURIComponent(jobId)}` : `#/${page}`;
}
