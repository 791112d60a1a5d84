// Disposable-domain matching (the fields isDisposable and disposableSource).

export const DISPOSABLE_SOURCES = ['list', 'parent_domain', 'mx_host'] as const;
export type DisposableSource = (typeof DISPOSABLE_SOURCES)[number];

export interface DisposableLists {
  /** Union of the disposable lists, allowlist already removed. */
  readonly disposable: ReadonlySet<string>;
  /** Known false positives of the lists: never disposable, nor are their subdomains. */
  readonly allowlist: ReadonlySet<string>;
}

/** True when the domain or one of its parents down to the registrable domain is allowlisted. */
export function isAllowlisted(domain: string, registrable: string | null, lists: DisposableLists): boolean {
  if (lists.allowlist.size === 0) return false;
  for (let name: string | null = domain; name !== null; name = parentWithin(name, registrable)) {
    if (lists.allowlist.has(name)) return true;
  }
  return false;
}

/**
 * `list` when the domain itself is listed, `parent_domain` when a parent domain is, checking
 * parents down to the registrable domain (never the public suffix itself: `co.uk` is not a
 * provider), null otherwise. Allowlisted domains (and subdomains of allowlisted ones) never match.
 */
export function listedDisposableSource(
  domain: string,
  registrable: string | null,
  lists: DisposableLists,
): 'list' | 'parent_domain' | null {
  if (isAllowlisted(domain, registrable, lists)) return null;
  if (lists.disposable.has(domain)) return 'list';
  for (
    let parent = parentWithin(domain, registrable);
    parent !== null;
    parent = parentWithin(parent, registrable)
  ) {
    if (lists.disposable.has(parent)) return 'parent_domain';
  }
  return null;
}

/** The parent of `name` if it is still at or below `registrable`, else null. */
function parentWithin(name: string, registrable: string | null): string | null {
  if (registrable === null || name.length <= registrable.length) return null;
  const dot = name.indexOf('.');
  return dot < 0 ? null : name.slice(dot + 1);
}
