// Hash routes (#/keys): the app is one static file behind CloudFront and the local server, so the
// path never changes and a reload or a shared link opens the same page.

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

export type Route = { page: Page; jobId?: string } | { page: 'sign-in'; token: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second] = parts;
  if (first === 'sign-in' && second) return { page: 'sign-in', token: second };
  if (first === 'jobs' && second) return { page: 'jobs', jobId: second };
  return { page: (PAGES as readonly string[]).includes(first ?? '') ? (first as Page) : 'overview' };
}

export function href(page: Page, jobId?: string): string {
  return jobId ? `#/${page}/${encodeURIComponent(jobId)}` : `#/${page}`;
}

export function navigate(page: Page, jobId?: string): void {
  location.hash = href(page, jobId);
}
