import pLimit from 'p-limit';
import type { FileReport } from '../security/manifest.js';
import { assertParseable, type SourceFile } from '../security/sources/parse-result.js';
import type { Rejection } from '../security/validate.js';
import type { SourceFetcher } from './fetch.js';

// Fetches and parses one source file. A required file that cannot be fetched or parsed is a
// rejection of the refresh; an optional one is left out with a note. Either way the report records
// what happened, for the manifest.

export interface ReadSource<T> {
  report: FileReport;
  entries: T[];
  /** Set when a required file failed: the refresh must not publish. */
  failure: Rejection | null;
}

export async function readSource<T>(fetcher: SourceFetcher, file: SourceFile<T>): Promise<ReadSource<T>> {
  const optional = file.optional === true;
  const base = { id: file.id, url: file.url, optional };
  let fetchedAt: string | null = null;
  try {
    const fetched = await fetcher.fetch(file);
    fetchedAt = fetched.fetchedAt.toISOString();
    const parsed = assertParseable(file.parse(fetched.text), file.id);
    return {
      report: { ...base, status: 'ok', count: parsed.entries.length, invalid: parsed.invalid, fetchedAt },
      entries: parsed.entries,
      failure: null,
    };
  } catch (error) {
    const reason = `${(error as Error).name}: ${(error as Error).message}`;
    return {
      report: { ...base, status: 'unavailable', count: 0, invalid: 0, fetchedAt, note: reason },
      entries: [],
      failure: optional ? null : { id: file.id, reason },
    };
  }
}

/** Reads files with at most `limit` fetches at once, results in input order. */
export async function readSources<T>(
  fetcher: SourceFetcher,
  files: readonly SourceFile<T>[],
  limit = 8,
): Promise<ReadSource<T>[]> {
  return pLimit(limit).map(files, (file) => readSource(fetcher, file));
}
