// The fetch port of the refresh: the orchestration asks for a source file by its upstream URL and
// snapshot path and gets text (or, for archives, bytes) back, or a SourceUnavailableError. Adapters: http-fetcher.ts (the
// upstream URLs; the refresh Lambda and `npm run data:refresh`) and snapshot-fetcher.ts (a local
// snapshot directory, each file at its `snapshot` path; tests, the layer build and `--from DIR`).

export interface FetchTarget {
  id: string;
  url: string;
  /** Path under a snapshot directory; null when the source has no snapshot copy. */
  snapshot: string | null;
}

export interface FetchedText {
  text: string;
  /** When it was fetched, or the snapshot file's modification time. */
  fetchedAt: Date;
  /** The URL or file it came from. */
  origin: string;
}

export interface FetchedBytes {
  bytes: Uint8Array;
  /** When it was fetched, or the snapshot file's modification time. */
  fetchedAt: Date;
  /** The URL or file it came from. */
  origin: string;
}

export class SourceUnavailableError extends Error {
  override readonly name = 'SourceUnavailableError';
}

export interface SourceFetcher {
  /** Recorded in the manifests. */
  readonly mode: 'upstream' | 'snapshot';
  /** The file as UTF-8 text. */
  fetch(target: FetchTarget): Promise<FetchedText>;
  /** The file as bytes (a zip archive), under the same rules. */
  fetchBytes(target: FetchTarget): Promise<FetchedBytes>;
}
