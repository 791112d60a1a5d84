// Turns the labelled ranges of every list into the disjoint masked ranges of the artifact
// (range-table.ts). Lists overlap freely (a Tor exit inside a hosting range, an IPsum address inside
// a sanctioned network), so a sweep over the range boundaries keeps, per flag, how many ranges are
// open; wherever the set of open flags changes a new output range starts. Neighbours with the same
// mask merge, so the output is the smallest set of ranges that answers exactly like the inputs.
// The output depends only on the input ranges (not their order): builds are reproducible.
import type { SecurityFlag } from './flags.js';
import { FLAG_BITS, SECURITY_FLAGS } from './flags.js';
import type { IpRange } from './ip-range.js';
import type { MaskedRange, RangeTableContent } from './range-table.js';

export interface LabelledRange extends IpRange {
  flag: SecurityFlag;
}

export interface CompiledRanges {
  v4: MaskedRange[];
  v6: MaskedRange[];
}

/** Boundary events of one family: position, flag index and +1 (opens) or -1 (closes at position). */
interface Event {
  at: bigint;
  flag: number;
  delta: 1 | -1;
}

const FLAG_INDEX: Readonly<Record<SecurityFlag, number>> = Object.fromEntries(
  SECURITY_FLAGS.map((flag, i) => [flag, i]),
) as Record<SecurityFlag, number>;

function sweep(events: Event[]): MaskedRange[] {
  events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const open = new Array<number>(SECURITY_FLAGS.length).fill(0);
  const out: MaskedRange[] = [];
  let mask = 0;
  let startedAt = 0n;
  for (let i = 0; i < events.length; ) {
    const at = (events[i] as Event).at;
    // Apply every event at this position before looking at the mask: a range ending at at-1 and
    // one starting at `at` with the same flag leave the mask unchanged, so the two merge.
    while (i < events.length && (events[i] as Event).at === at) {
      const e = events[i] as Event;
      open[e.flag] = (open[e.flag] as number) + e.delta;
      i++;
    }
    let next = 0;
    for (let f = 0; f < open.length; f++) {
      if ((open[f] as number) > 0) next |= FLAG_BITS[SECURITY_FLAGS[f] as SecurityFlag];
    }
    if (next === mask) continue;
    if (mask !== 0) out.push({ start: startedAt, end: at - 1n, mask });
    mask = next;
    startedAt = at;
  }
  return out;
}

/** Compiles labelled ranges (any order, any overlap) into sorted, disjoint, non-empty masked ranges. */
export function compileRanges(ranges: Iterable<LabelledRange>): CompiledRanges {
  const events: Record<4 | 6, Event[]> = { 4: [], 6: [] };
  for (const r of ranges) {
    if (r.start > r.end) continue;
    const flag = FLAG_INDEX[r.flag];
    events[r.family].push({ at: r.start, flag, delta: 1 }, { at: r.end + 1n, flag, delta: -1 });
  }
  return { v4: sweep(events[4]), v6: sweep(events[6]) };
}

/** Ranges per flag in a compiled table, by family (for the manifest). */
export function countByFlag(compiled: CompiledRanges): Record<SecurityFlag, { v4: number; v6: number }> {
  const counts = Object.fromEntries(SECURITY_FLAGS.map((f) => [f, { v4: 0, v6: 0 }])) as Record<
    SecurityFlag,
    { v4: number; v6: number }
  >;
  for (const family of ['v4', 'v6'] as const) {
    for (const r of compiled[family]) {
      for (const flag of SECURITY_FLAGS) if ((r.mask & FLAG_BITS[flag]) !== 0) counts[flag][family]++;
    }
  }
  return counts;
}

export function tableContent(version: string, compiled: CompiledRanges): RangeTableContent {
  return { version, v4: compiled.v4, v6: compiled.v6 };
}
