import {
  DeleteObjectsCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { type LoadedData, loadIpData } from '../ip/ip-data.js';
import type { VersionSource } from '../refresh/hot-swap.js';
import type { ArtifactFile } from '../refresh/refresh.js';
import { isVersionId } from '../refresh/version.js';
import { CALL_BOUNDS, type CallBound, putResponseMs } from './call-bounds.js';

// Versioned data in S3, written by the refresh Lambda and read by every function that hot-swaps
// data (data refresh). Layout in the bucket (the jobs bucket unless DATA_BUCKET names another):
//
//   data/current.json                    pointer: {"version", "publishedAt", "files": [...]}
//   data/<version>/security/ranges.bin   compiled range table
//   data/<version>/security/manifest.json
//   data/<version>/email/disposable.txt, allowlist.txt, mx-hosts.txt, lists-manifest.json,
//                        free.txt, role.txt, common-providers.json, relays.txt (the layer's, carried
//                        along; versions published before relays.txt existed lack it)
//
// A version's objects are immutable and written before the pointer, so a reader that follows the
// pointer always finds a complete version. The `data/` prefix has no lifecycle expiry (the job
// prefixes do): the refresh prunes old versions itself, keeping the newest few for rollback (point
// current.json at an older version to roll back; functions only move forward, so a rollback
// reaches containers started after it).

export const DATA_PREFIX = 'data/';
export const POINTER_FILE = 'current.json';
/** Versions kept in the bucket, the current one included. */
export const DATA_VERSIONS_KEPT = 4;

export interface DataPointer {
  version: string;
  publishedAt: string;
  files: string[];
}

function isPointer(value: unknown): value is DataPointer {
  const p = value as Partial<DataPointer> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.version === 'string' &&
    isVersionId(p.version) &&
    typeof p.publishedAt === 'string' &&
    Array.isArray(p.files)
  );
}

/**
 * A key that is not there. The functions that follow the data hold s3:GetObject on `data/*` and no
 * s3:ListBucket (infra/constructs/data-refresh.ts), and S3 answers such a caller's GET of a missing
 * key with 403 AccessDenied rather than 404 NoSuchKey ("If you don't have the s3:ListBucket
 * permission, Amazon S3 returns an HTTP status code 403", GetObject API reference). Before the
 * first refresh publishes, data/current.json is such a key: it means "nothing published yet".
 */
export function isAbsent(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  return error instanceof NoSuchKey || name === 'NoSuchKey' || name === 'AccessDenied';
}

export class S3DataStore {
  /** `bound`: the client's (call-bounds.ts); an artifact's PUT bound grows with its size. */
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    private readonly prefix = DATA_PREFIX,
    private readonly bound: CallBound = CALL_BOUNDS.s3,
  ) {}

  private key(version: string, path: string): string {
    return `${this.prefix}${version}/${path}`;
  }

  private async get(key: string): Promise<Uint8Array | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
    } catch (error) {
      if (isAbsent(error)) return null;
      throw error;
    }
  }

  /** The published pointer, or null when nothing was published yet. */
  async readPointer(): Promise<DataPointer | null> {
    const body = await this.get(`${this.prefix}${POINTER_FILE}`);
    if (body === null) return null;
    const value: unknown = JSON.parse(new TextDecoder().decode(body));
    if (!isPointer(value))
      throw new Error(`s3://${this.bucket}/${this.prefix}${POINTER_FILE} is not a data pointer`);
    return value;
  }

  /** One file of a version, or null when absent. */
  readFile(version: string, path: string): Promise<Uint8Array | null> {
    return this.get(this.key(version, path));
  }

  /** Uploads every file of a version, then points current.json at it. */
  async publish(version: string, files: readonly ArtifactFile[], publishedAt: Date): Promise<DataPointer> {
    for (const file of files) {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(version, file.path),
          Body: file.body,
          ContentType: file.contentType,
        }),
        { requestTimeout: putResponseMs(this.bound, file.body.byteLength) },
      );
    }
    const pointer: DataPointer = {
      version,
      publishedAt: publishedAt.toISOString(),
      files: files.map((f) => f.path),
    };
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${this.prefix}${POINTER_FILE}`,
        Body: JSON.stringify(pointer),
        ContentType: 'application/json',
        CacheControl: 'no-cache',
      }),
    );
    return pointer;
  }

  /** One object beside the versions (`<prefix><path>`), e.g. the last refresh's checks. */
  async writeBeside(path: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${this.prefix}${path}`,
        Body: body,
        ContentType: contentType,
        CacheControl: 'no-cache',
      }),
    );
  }

  /** One object beside the versions, or null when absent. */
  readBeside(path: string): Promise<Uint8Array | null> {
    return this.get(`${this.prefix}${path}`);
  }

  /** Version ids present in the bucket, oldest first. */
  async listVersions(): Promise<string[]> {
    // Every key is listed rather than CommonPrefixes with a delimiter: a version holds about a dozen
    // objects and a few versions are kept, and the local S3 emulators disagree on delimiters.
    const versions = new Set<string>();
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.bucket, Prefix: this.prefix },
    );
    for await (const page of pages) {
      for (const o of page.Contents ?? []) {
        const id = (o.Key ?? '').slice(this.prefix.length).split('/')[0] ?? '';
        if (isVersionId(id)) versions.add(id);
      }
    }
    return [...versions].sort();
  }

  /** Deletes all but the newest `keep` versions (never `current`). Returns the versions deleted. */
  async prune(current: string, keep = DATA_VERSIONS_KEPT): Promise<string[]> {
    const versions = await this.listVersions();
    const doomed = versions.slice(0, Math.max(0, versions.length - keep)).filter((v) => v !== current);
    for (const version of doomed) {
      const pages = paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.bucket, Prefix: `${this.prefix}${version}/` },
      );
      // A page holds at most 1,000 keys, as many as one DeleteObjects call takes.
      for await (const page of pages) {
        const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key as string }));
        if (keys.length > 0) {
          await this.client.send(
            new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys, Quiet: true } }),
          );
        }
      }
    }
    return doomed;
  }
}

/**
 * The hot-swap port over the store: the pointer names the latest version, `load` builds the value
 * from that version's files (a missing file fails the load).
 */
export function s3VersionSource<T>(
  store: S3DataStore,
  load: (read: (path: string) => Promise<Uint8Array>, version: string) => Promise<T>,
): VersionSource<T> {
  return {
    latestVersion: async () => (await store.readPointer())?.version ?? null,
    load: (version) =>
      load(async (path) => {
        const body = await store.readFile(version, path);
        if (body === null)
          throw new Error(`s3://${store.bucket}/${DATA_PREFIX}${version}/${path} is missing`);
        return body;
      }, version),
  };
}

/**
 * Where the refresh publishes the IP data (location, network, postal, subdivisions, geofeed): a
 * store of its own beside `data/`, since its files are large (a City database is 60-130 MB) and
 * change on their own schedule (a database's weekly or monthly build, GeoNames' dumps): a lists
 * refresh every 6 hours does not copy them, and a function downloads them only when they change.
 */
export const IP_DATA_PREFIX = 'ip-data/';

/** The hot-swap port over the IP store: a version's files by name, absent ones null (ip-data.ts loadIpData). */
export function s3IpVersions(store: S3DataStore): VersionSource<LoadedData> {
  return {
    latestVersion: async () => (await store.readPointer())?.version ?? null,
    load: (version) =>
      loadIpData(
        (name) => store.readFile(version, name),
        `s3://${store.bucket}/${IP_DATA_PREFIX}${version}/`,
      ),
  };
}
