import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type FetchedText, type FetchTarget, type SourceFetcher, SourceUnavailableError } from './fetch.js';

// Reads sources from a directory laid out like ../shared/data (SOURCES.md): each source file at its
// `snapshot` path. The fetch time recorded is the file's modification time, so a build from the
// same snapshot directory gives the same version.

export function snapshotFetcher(dir: string): SourceFetcher {
  return {
    mode: 'snapshot',
    async fetch(target: FetchTarget): Promise<FetchedText> {
      if (target.snapshot === null) throw new SourceUnavailableError(`${target.id}: no snapshot copy exists`);
      const path = join(dir, target.snapshot);
      try {
        const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
        return { text, fetchedAt: info.mtime, origin: path };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') throw new SourceUnavailableError(`${target.id}: ${path} not found`);
        throw error;
      }
    },
  };
}
