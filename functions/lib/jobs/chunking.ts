// How a job's rows become SQS work items. Rows are grouped by domain (so a chunk's addresses share
// DNS lookups, also across Lambda containers) and identical addresses always land in the same
// chunk, so each chunk's count of distinct addresses is known at creation: that is what a failed
// job refunds for its unprocessed chunks, without reading the upload again.

export const DEFAULT_CHUNK_ROWS = 1_000;

export interface ChunkRow {
  /** Position of the row in the submission (0-based); results are reassembled in this order. */
  pos: number;
  email: string;
}

export interface ChunkPlan {
  index: number;
  rows: ChunkRow[];
  /** Distinct addresses (exact match) in this chunk, which no other chunk contains. */
  distinct: number;
}

function domainKey(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0
    ? ''
    : email
        .slice(at + 1)
        .trim()
        .toLowerCase();
}

export function planChunks(emails: readonly string[], chunkRows = DEFAULT_CHUNK_ROWS): ChunkPlan[] {
  const order = emails.map((email, pos) => ({ pos, email, domain: domainKey(email) }));
  order.sort((a, b) =>
    a.domain < b.domain
      ? -1
      : a.domain > b.domain
        ? 1
        : a.email < b.email
          ? -1
          : a.email > b.email
            ? 1
            : a.pos - b.pos,
  );
  const chunks: ChunkPlan[] = [];
  let rows: ChunkRow[] = [];
  let distinct = 0;
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    const newAddress = i === 0 || order[i - 1]!.email !== row.email;
    // Cut only between two different addresses, so duplicates never straddle chunks.
    if (newAddress && rows.length >= chunkRows) {
      chunks.push({ index: chunks.length, rows, distinct });
      rows = [];
      distinct = 0;
    }
    if (newAddress) distinct++;
    rows.push({ pos: row.pos, email: row.email });
  }
  if (rows.length > 0) chunks.push({ index: chunks.length, rows, distinct });
  return chunks;
}
