import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type FetchedBytes,
  type FetchedText,
  type FetchTarget,
  type SourceFetcher,
  SourceUnavailableError,
} from './fetch.js';

// Reads sources from a local snapshot directory (`--from DIR`): each source file at the `snapshot`
// path its catalog entry names. The fetch time recorded is the file's modification time, so a build
// from the same snapshot directory gives the same version.

export function snapshotFetcher(dir: string): SourceFetcher {
  async function read<T>(target: FetchTarget, load: (path: string) => Promise<T>) {
    if (target.snapshot === null) throw new SourceUnavailableError(`${target.id}: no snapshot copy exists`);
    const path = join(dir, target.snapshot);
    try {
      const [content, info] = await Promise.all([load(path), stat(path)]);
      return { content, fetchedAt: info.mtime, origin: path };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new SourceUnavailableError(`${target.id}: ${path} not found`);
      throw error;
    }
  }
  return {
    mode: 'snapshot',
    async fetch(target: FetchTarget): Promise<FetchedText> {
      const { content, fetchedAt, origin } = await read(target, (path) => readFile(path, 'utf8'));
      return { text: content, fetchedAt, origin };
    },
    async fetchBytes(target: FetchTarget): Promise<FetchedBytes> {
      const { content, fetchedAt, origin } = await read(target, (path) => readFile(path));
      return { bytes: content, fetchedAt, origin };
    },
  };
}
