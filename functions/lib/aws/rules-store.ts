import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  AccountRulesStore,
  DocumentMeta,
  RuleChange,
  RuleDocument,
  RulesMeta,
  TravelMeta,
} from '../accounts/account-rules.js';
import { RulesConflictError } from '../accounts/errors.js';
import { checkIfMatch } from '../accounts/rules-tags.js';
import { beforeTry, CONTENDED_SAVE } from '../backoff.js';
import type { TravelSettings } from '../risk/travel-settings.js';
import { conditional } from './dynamo-conditions.js';

// An account's rules on the Accounts table (accounts/account-rules.ts):
//   ACCOUNT#<id> / PROFILE                      rulesVersion, rulesGeofeed, rulesEmail, rulesTravel
//   ACCOUNT#<id> / RULES#<kind>#<version>#<nn>  a document's gzip-compressed bytes, in chunks
// A write stores the new version's chunks, then points the profile at them with a write that only
// succeeds while the profile still has the rulesVersion it read (another change in between: the write
// starts again), then deletes the chunks it replaced. A process killed at any step leaves the old
// rules or the new ones in force, never a mix; chunks nothing points at (a write killed before its
// switch, or after it and before its clean-up) are deleted by the account's next change. The chunk items carry no accountId, so they stay out of the account's
// index (account-items.ts). No transaction: the local emulator has none.
// A change sent with If-Match (accounts/rules-tags.ts) is checked against the profile each try
// reads: the switch lands only while that profile is unchanged, so the check holds when it lands,
// and a change that came first makes the next try refuse (RulesChangedError, nothing applied).

/** Under DynamoDB's 400 KB item limit, with room for the keys. */
const CHUNK_BYTES = 350_000;
/*
 * Tries of a change whose switch another change of the same account won. Every change of the
 * account's rules (geofeed, email rules, travel) moves the one rulesVersion, so two tabs saving at
 * once race; each lost try waits (backoff.ts) so that the racers spread out: 20 saves at the same
 * moment all land (test/integration/account-rules.cases.ts). Past the last try it is
 * RulesConflictError (503 service_unavailable, nothing applied).
 */
/** Profile attribute of each document's meta. */
const META_ATTRIBUTE: Readonly<Record<RuleDocument, string>> = {
  geofeed: 'rulesGeofeed',
  emailRules: 'rulesEmail',
};
const TRAVEL_ATTRIBUTE = 'rulesTravel';

const profileKey = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' });
const chunkPrefix = (kind: RuleDocument, version?: string) =>
  version === undefined ? `RULES#${kind}#` : `RULES#${kind}#${version}#`;

/** A version id that sorts by time: base-36 milliseconds, then randomness. */
function newVersion(now: Date): string {
  return `${now.getTime().toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`;
}

export class DynamoRulesStore implements AccountRulesStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async meta(accountId: string): Promise<RulesMeta> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: profileKey(accountId), ConsistentRead: true }),
    );
    const item = res.Item ?? {};
    return {
      ...(typeof item.rulesVersion === 'string' ? { rulesVersion: item.rulesVersion } : {}),
      ...(item[META_ATTRIBUTE.geofeed] ? { geofeed: item[META_ATTRIBUTE.geofeed] as DocumentMeta } : {}),
      ...(item[META_ATTRIBUTE.emailRules]
        ? { emailRules: item[META_ATTRIBUTE.emailRules] as DocumentMeta }
        : {}),
      ...(item[TRAVEL_ATTRIBUTE] ? { travel: item[TRAVEL_ATTRIBUTE] as TravelMeta } : {}),
    };
  }

  async readDocument(
    accountId: string,
    kind: RuleDocument,
  ): Promise<{ meta: DocumentMeta; body: Buffer } | undefined> {
    for (let attempt = 0; attempt < CONTENDED_SAVE.attempts; attempt++) {
      const meta = (await this.meta(accountId))[kind];
      if (!meta) return undefined;
      const chunks = await this.chunks(accountId, kind, meta.version);
      // A write that replaced this version between the two reads may have deleted its chunks: read
      // the profile again.
      if (chunks.length === meta.chunks) return { meta, body: gunzipSync(Buffer.concat(chunks)) };
    }
    throw new RulesConflictError(`the ${kind} of ${accountId} changed during every read`);
  }

  /**
   * The change as of this try: its time is when this try's switch is written, so the change in force
   * is also the latest one (`at`), however long the tries before it waited.
   */
  private stamped(change: RuleChange): RuleChange {
    const now = this.now();
    return { ...change, at: now.toISOString() };
  }

  async writeDocument(
    accountId: string,
    kind: RuleDocument,
    body: Buffer,
    facts: { count: number; change: RuleChange },
    ifMatch?: string,
  ): Promise<DocumentMeta> {
    const packed = gzipSync(body);
    const parts: Buffer[] = [];
    for (let at = 0; at < packed.length; at += CHUNK_BYTES) parts.push(packed.subarray(at, at + CHUNK_BYTES));
    for (let attempt = 0; attempt < CONTENDED_SAVE.attempts; attempt++) {
      await beforeTry(attempt, CONTENDED_SAVE);
      const before = await this.meta(accountId);
      checkIfMatch(kind, before, ifMatch);
      const version = newVersion(this.now());
      await Promise.all(
        parts.map((data, n) =>
          this.db.send(
            new PutCommand({
              TableName: this.table,
              Item: {
                ...profileKey(accountId),
                sk: `${chunkPrefix(kind, version)}${String(n).padStart(3, '0')}`,
                data,
              },
            }),
          ),
        ),
      );
      const change = this.stamped(facts.change);
      const meta: DocumentMeta = {
        version,
        chunks: parts.length,
        count: facts.count,
        bytes: body.length,
        ...change,
      };
      const switched = await this.switchProfile(accountId, before.rulesVersion, META_ATTRIBUTE[kind], meta, {
        ...change,
        what: `${kind} written`,
      });
      if (switched) {
        await this.cleanUp(accountId, kind, version);
        return meta;
      }
      await this.deleteChunks(accountId, kind, version, parts.length);
    }
    throw new RulesConflictError(`the rules of ${accountId} changed during every write`);
  }

  async deleteDocument(
    accountId: string,
    kind: RuleDocument,
    given: RuleChange,
    ifMatch?: string,
  ): Promise<RuleChange | null> {
    for (let attempt = 0; attempt < CONTENDED_SAVE.attempts; attempt++) {
      await beforeTry(attempt, CONTENDED_SAVE);
      const before = await this.meta(accountId);
      checkIfMatch(kind, before, ifMatch);
      if (!before[kind]) return null;
      const change = this.stamped(given);
      const switched = await this.switchProfile(
        accountId,
        before.rulesVersion,
        META_ATTRIBUTE[kind],
        undefined,
        {
          ...change,
          what: `${kind} deleted`,
        },
      );
      if (switched) {
        await this.cleanUp(accountId, kind, newVersion(this.now()));
        return change;
      }
    }
    throw new RulesConflictError(`the rules of ${accountId} changed during every write`);
  }

  async writeTravel(
    accountId: string,
    settings: TravelSettings,
    given: RuleChange,
    ifMatch?: string,
  ): Promise<TravelMeta> {
    for (let attempt = 0; attempt < CONTENDED_SAVE.attempts; attempt++) {
      await beforeTry(attempt, CONTENDED_SAVE);
      const before = await this.meta(accountId);
      checkIfMatch('travel', before, ifMatch);
      const change = this.stamped(given);
      const meta: TravelMeta = { settings, ...change };
      const switched = await this.switchProfile(accountId, before.rulesVersion, TRAVEL_ATTRIBUTE, meta, {
        ...change,
        what: 'travel written',
      });
      if (switched) {
        return meta;
      }
    }
    throw new RulesConflictError(`the rules of ${accountId} changed during every write`);
  }

  /**
   * Sets (or removes) one rules attribute of the profile, with a new rulesVersion and the change
   * that made it, only while the profile exists and still has `expected` (none: still has none).
   * False when another change came first.
   */
  private switchProfile(
    accountId: string,
    expected: string | undefined,
    attribute: string,
    value: unknown,
    change: RuleChange & { what: string },
  ): Promise<boolean> {
    const set = ['rulesVersion = :next', 'rulesLastChange = :change'];
    if (value !== undefined) set.push('#attr = :value');
    return conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: profileKey(accountId),
          UpdateExpression: `SET ${set.join(', ')}${value === undefined ? ' REMOVE #attr' : ''}`,
          ConditionExpression:
            expected === undefined
              ? 'attribute_exists(pk) AND attribute_not_exists(rulesVersion)'
              : 'attribute_exists(pk) AND rulesVersion = :expected',
          ExpressionAttributeNames: { '#attr': attribute },
          ExpressionAttributeValues: {
            ':next': newVersion(this.now()),
            ':change': change,
            ...(value === undefined ? {} : { ':value': value }),
            ...(expected === undefined ? {} : { ':expected': expected }),
          },
        }),
      ),
    );
  }

  private async chunks(accountId: string, kind: RuleDocument, version: string): Promise<Buffer[]> {
    const out: Buffer[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': profileKey(accountId).pk,
            ':prefix': chunkPrefix(kind, version),
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of res.Items ?? []) out.push(Buffer.from(item.data as Uint8Array));
      start = res.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /**
   * Deletes the kind's chunks of every version older than `cutoff` that the profile no longer points
   * at. A write passes its own version (what it replaced and any left-over are older); a delete, a
   * version made after its switch. A write still running with an older version read the profile
   * before this switch, so its own switch fails and it starts again with new chunks; one with a
   * newer version is left alone.
   */
  private async cleanUp(accountId: string, kind: RuleDocument, cutoff: string): Promise<void> {
    const prefix = chunkPrefix(kind);
    const current = (await this.meta(accountId))[kind]?.version;
    const stale: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': profileKey(accountId).pk, ':prefix': prefix },
          ProjectionExpression: 'sk',
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of res.Items ?? []) {
        const sk = item.sk as string;
        const version = sk.slice(prefix.length).split('#')[0] ?? '';
        if (version !== current && version < cutoff) stale.push(sk);
      }
      start = res.LastEvaluatedKey;
    } while (start);
    await Promise.all(
      stale.map((sk) =>
        this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: profileKey(accountId).pk, sk } })),
      ),
    );
  }

  private async deleteChunks(
    accountId: string,
    kind: RuleDocument,
    version: string,
    count: number,
  ): Promise<void> {
    await Promise.all(
      Array.from({ length: count }, (_, n) =>
        this.db.send(
          new DeleteCommand({
            TableName: this.table,
            Key: {
              pk: profileKey(accountId).pk,
              sk: `${chunkPrefix(kind, version)}${String(n).padStart(3, '0')}`,
            },
          }),
        ),
      ),
    );
  }
}
