import type { JobRecord } from './job.js';
import { resultsHeader } from './results-csv.js';
import { type Counts, countKeys } from './summary.js';

/** What a chunk's processing stored: its CSV lines by row position, and their summary counts. */
export interface ChunkResults {
  lines: [number, string][];
  counts: Counts;
}

/**
 * The results file in submission order, and the summary counts of exactly those lines: both come
 * from the same chunk results, so when two deliveries of a chunk ran at once (the file of one and
 * the counts of the other may have been stored) the summary still describes the file the caller
 * downloads.
 */
export function assembleResults(
  record: Pick<JobRecord, 'total'>,
  chunks: readonly ChunkResults[],
): { body: string; counts: Counts } {
  const lines = new Array<string>(record.total);
  const counts: Counts = Object.fromEntries(countKeys().map((k) => [k, 0]));
  for (const stored of chunks) {
    for (const [pos, line] of stored.lines) lines[pos] = line;
    for (const [k, v] of Object.entries(stored.counts)) counts[k] = (counts[k] ?? 0) + v;
  }
  return { body: resultsHeader() + lines.join(''), counts };
}

/**
 * The chunks to queue again for a queued or processing job: every chunk not yet counted, or, when
 * all were counted but the job was not finalised, chunk 0 alone (a redelivery finishes the job).
 */
export function chunksToRequeue(record: Pick<JobRecord, 'chunkCount' | 'doneChunks'>): number[] {
  const done = new Set(record.doneChunks);
  const pending = Array.from({ length: record.chunkCount }, (_, i) => i).filter((i) => !done.has(i));
  return pending.length > 0 ? pending : [0];
}
