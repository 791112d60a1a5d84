import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';

// Where s3rver's file store differs from S3 in ways the job flow meets, patched on its store object.

/** The part of s3rver's (untyped) filesystem store replaced here. */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, suffix: string): string;
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  deleteObject(bucket: string, key: string): Promise<void>;
}

interface StoredObject {
  bucket: string;
  key: string;
  metadata: unknown;
  content: Buffer | Readable;
}

/**
 * S3 replaces an object whole: a GET meanwhile gets the old object or the new one. s3rver wrote a put
 * over the object's file in place, so a GET of the key at that moment streamed a file being
 * truncated, sent fewer bytes than its Content-Length, and the SDK waited for the rest for ever: a
 * job chunk delivered twice hung its processor while the job's results were being assembled (seen
 * once in a CI run). Here a put writes a temporary file and renames it over the object, and a key's
 * get (size, then open), the put's rename and metadata, and its delete take turns; an opened file
 * keeps its content whatever replaces it.
 *
 * s3rver also removed a key's folders when a delete left them empty, and a put under the same prefix
 * at that moment opened its file in a folder that was gone (an unhandled ENOENT took the process
 * down). S3 has no folders: deletes here remove the object's files only, and listing walks files, so
 * empty folders never show as keys.
 */
export function storeObjectsWhole(s3rver: S3rver): void {
  const store = (s3rver as unknown as { store: FilesystemStore }).store;
  const turns = new Map<string, Promise<void>>();
  function inTurn<T>(bucket: string, key: string, work: () => Promise<T>): Promise<T> {
    const id = `${bucket}\n${key}`;
    const run = (turns.get(id) ?? Promise.resolve()).then(work);
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    turns.set(id, done);
    void done.then(() => {
      if (turns.get(id) === done) turns.delete(id);
    });
    return run;
  }

  const getObject = store.getObject.bind(store);
  store.getObject = (bucket, key, options) => inTurn(bucket, key, () => getObject(bucket, key, options));

  store.putObject = async (object) => {
    const path = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(path), { recursive: true });
    // Not named like an object file, so a listing meanwhile does not show it.
    const temporary = `${path}.${randomUUID()}.tmp`;
    const md5 = createHash('md5');
    let size = 0;
    try {
      if (Buffer.isBuffer(object.content)) {
        md5.update(object.content);
        size = object.content.length;
        await writeFile(temporary, object.content);
      } else {
        const count = new Transform({
          transform(chunk: Buffer, _encoding, next) {
            md5.update(chunk);
            size += chunk.length;
            next(null, chunk);
          },
        });
        await pipeline(object.content, count, createWriteStream(temporary));
      }
    } catch (err) {
      await unlink(temporary).catch(() => undefined);
      throw err;
    }
    const digest = md5.digest('hex');
    await inTurn(object.bucket, object.key, async () => {
      await rename(temporary, path);
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    });
    return { size, md5: digest };
  };

  // s3rver wrote an object's md5 and metadata files in place: a process killed in that write left a
  // truncated metadata.json, and every later read of the key failed (a HEAD answered 500, which the
  // SDK reports as UnknownError), so the restart's sweep could never settle the list job it belonged
  // to. Each file is now written whole (a temporary file renamed over it), and a metadata file a
  // kill truncated before this change is read as absent, as s3rver reads a missing one.
  // Unbound: it runs with `this` as the staging view below, whose paths are the temporary names.
  const putMetadata = store.putMetadata;
  store.putMetadata = async (bucket, key, metadata, md5) => {
    const staging = `${store.getResourcePath(bucket, key, 'object')}.${randomUUID()}.tmp-`;
    // s3rver's own write, into a staging name; then each file renamed into place.
    const stagedPath = (suffix: string) => `${staging}${suffix}`;
    const getResourcePath = store.getResourcePath.bind(store);
    const staged: FilesystemStore = Object.create(store, {
      getResourcePath: { value: (_b: string, _k: string, suffix: string) => stagedPath(suffix) },
    });
    await putMetadata.call(staged, bucket, key, metadata, md5);
    for (const suffix of ['object.md5', 'metadata.json']) {
      await rename(stagedPath(suffix), getResourcePath(bucket, key, suffix)).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        },
      );
    }
  };
  const getMetadata = store.getMetadata.bind(store);
  store.getMetadata = async (bucket, key) => {
    try {
      return await getMetadata(bucket, key);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      await unlink(store.getResourcePath(bucket, key, 'metadata.json')).catch(() => undefined);
      return getMetadata(bucket, key);
    }
  };

  store.deleteObject = (bucket, key) =>
    inTurn(bucket, key, async () => {
      await Promise.all(
        (['object', 'object.md5', 'metadata.json'] as const).map((suffix) =>
          unlink(store.getResourcePath(bucket, key, suffix)).catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ENOENT') throw err;
          }),
        ),
      );
    });
}
