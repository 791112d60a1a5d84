// The one binary search of the sorted tables (IP ranges, security ranges, postal cells, domains).

/**
 * The last index below `count` at which `atOrBelow` holds, or -1 where it holds nowhere.
 * `atOrBelow(i)` says whether entry i sorts at or below the key sought; in a table sorted ascending
 * it holds for a prefix of the indexes, which is what lets the search halve the range each step.
 * A range table asks it of its starts: the answer is the one range that may hold the key.
 */
export function lastAtOrBelow(count: number, atOrBelow: (index: number) => boolean): number {
  let lo = 0;
  let hi = count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (atOrBelow(mid)) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
