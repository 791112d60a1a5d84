import type { FileReport } from './manifest.js';

// When a refreshed list may replace the current one (data refresh): a list that shrinks by more than
// half against the current version is far more likely a truncated download, an upstream accident
// or a changed format than a real change, so the whole refresh is refused, the current data stays
// in service and an alarm fires. Unparseable required sources are refused the same way (their
// SourceFormatError becomes a rejection in the refresh).

/** Largest accepted shrink of one list: strictly more than this share lost is refused. */
export const MAX_SHRINK = 0.5;

/**
 * Lists smaller than this in the current version are not held to the shrink rule (a crawler list of
 * 12 ranges may lose 7 for real); they are still refused when empty or unparseable.
 */
export const SHRINK_RULE_MIN_COUNT = 50;

export interface Rejection {
  /** FileReport id (or source id) the rejection is about. */
  id: string;
  reason: string;
}

/**
 * Rejections of `next` against `current` (per file id). A file the current version had that is
 * now unavailable is refused unless it is optional; one that shrank by more than MAX_SHRINK is refused.
 */
export function shrinkRejections(
  current: readonly FileReport[],
  next: readonly FileReport[],
  maxShrink = MAX_SHRINK,
): Rejection[] {
  const byId = new Map(next.map((f) => [f.id, f]));
  const out: Rejection[] = [];
  for (const before of current) {
    if (before.status !== 'ok' || before.count === 0) continue;
    const after = byId.get(before.id);
    if (after === undefined || after.status !== 'ok') {
      if (after?.optional ?? before.optional) continue;
      out.push({ id: before.id, reason: `missing: had ${before.count} entries, now unavailable` });
      continue;
    }
    if (before.count < SHRINK_RULE_MIN_COUNT) continue;
    if (after.count < before.count * (1 - maxShrink)) {
      out.push({
        id: before.id,
        reason: `shrank from ${before.count} to ${after.count} entries (more than ${maxShrink * 100}% lost)`,
      });
    }
  }
  return out;
}
