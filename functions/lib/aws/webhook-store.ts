import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deliveryDueAt } from '../webhooks/announce.js';
import { EMPTY_SET, type EndpointSet } from '../webhooks/endpoints.js';
import { EVENT_RETENTION_DAYS, type WebhookEvent } from '../webhooks/events.js';
import type {
  AttemptLog,
  DeliveryRecord,
  DueItem,
  JobReceiver,
  ReceiverHolder,
  StoredEvent,
  WebhookStore,
} from '../webhooks/ports.js';
import { firstInLine } from '../webhooks/ports.js';
import { conditional } from './dynamo-conditions.js';
import { WEBHOOKS_DUE } from './resources.js';

// The Webhooks table (webhooks/ports.ts). Under each account's partition `ACCOUNT#<id>`:
//   ENDPOINTS                            the endpoint set, with its version (one conditional write each change)
//   EVENT#<eventId>                      the event and the job's own receiver, kept EVENT_RETENTION_DAYS
//   DELIVERY#<eventId>#<targetId>        one event's delivery to one receiver: state, attempts, next attempt
//   ATTEMPT#<targetId>#<at>#<eventId>#<n> the delivery log, newest last
//   RECEIVER#<targetId>                  the attempt in flight to a receiver (one at a time), or the
//                                        delivery it is handed to next, and its line (eventId: due time)
// Items awaiting work carry `dueQueue` and `dueAt` (the sparse index webhooksDue): an event not yet
// announced, a delivery whose next attempt is due. Everything but the endpoint set expires by TTL.

const DUE = 'due';
const pk = (accountId: string) => `ACCOUNT#${accountId}`;
const deliverySk = (eventId: string, targetId: string) => `DELIVERY#${eventId}#${targetId}`;

export class DynamoWebhookStore implements WebhookStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date,
  ) {}

  private expiresAt(): number {
    return Math.floor(this.now().getTime() / 1000) + EVENT_RETENTION_DAYS * 86400;
  }

  async endpointSet(accountId: string): Promise<EndpointSet> {
    const res = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: pk(accountId), sk: 'ENDPOINTS' },
        ConsistentRead: true,
      }),
    );
    if (!res.Item) return EMPTY_SET;
    return { version: res.Item.version as number, endpoints: res.Item.endpoints as EndpointSet['endpoints'] };
  }

  saveEndpointSet(accountId: string, set: EndpointSet, expected: number): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: pk(accountId),
            sk: 'ENDPOINTS',
            accountId,
            version: set.version,
            endpoints: set.endpoints,
          },
          ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : 'version = :expected',
          ExpressionAttributeValues: expected === 0 ? undefined : { ':expected': expected },
        }),
      ),
    );
  }

  async putEvent(event: WebhookEvent, job: JobReceiver | undefined, dueAt: Date): Promise<void> {
    await conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: pk(event.accountId),
            sk: `EVENT#${event.id}`,
            event,
            ...(job ? { job } : {}),
            dueQueue: DUE,
            dueAt: dueAt.toISOString(),
            expiresAt: this.expiresAt(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async getEvent(accountId: string, eventId: string): Promise<StoredEvent | undefined> {
    const res = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: pk(accountId), sk: `EVENT#${eventId}` },
        ConsistentRead: true,
      }),
    );
    if (!res.Item) return undefined;
    return {
      event: res.Item.event as WebhookEvent,
      ...(res.Item.job ? { job: res.Item.job as JobReceiver } : {}),
      announced: res.Item.dueQueue === undefined,
    };
  }

  async markAnnounced(accountId: string, eventId: string): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(accountId), sk: `EVENT#${eventId}` },
          UpdateExpression: 'REMOVE dueQueue, dueAt',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    );
  }

  private deliveryItem(d: DeliveryRecord): Record<string, unknown> {
    const item: Record<string, unknown> = {
      pk: pk(d.accountId),
      sk: deliverySk(d.eventId, d.targetId),
      ...d,
      expiresAt: this.expiresAt(),
    };
    for (const [k, v] of Object.entries(item)) if (v === undefined) delete item[k];
    // A pending delivery is the sweep's at its time: a retry or a put-off attempt then; a first attempt,
    // which announce() queues at once, only if its message is lost (SWEEP_LEASE_MS later).
    const due = deliveryDueAt(d);
    if (due !== null) {
      item.dueQueue = DUE;
      item.dueAt = due;
    }
    return item;
  }

  createDelivery(d: DeliveryRecord): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: this.deliveryItem(d),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async getDelivery(
    accountId: string,
    eventId: string,
    targetId: string,
  ): Promise<DeliveryRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: { pk: pk(accountId), sk: deliverySk(eventId, targetId) },
        ConsistentRead: true,
      }),
    );
    if (!res.Item) return undefined;
    const { pk: _pk, sk: _sk, expiresAt: _e, dueQueue: _q, dueAt: _d, ...record } = res.Item;
    return record as DeliveryRecord;
  }

  claimAttempt(d: DeliveryRecord, now: Date, until: Date): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(d.accountId), sk: deliverySk(d.eventId, d.targetId) },
          UpdateExpression: 'SET claimedUntil = :until',
          ConditionExpression:
            '#state = :pending AND attempts = :attempts AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':attempts': d.attempts,
            ':until': until.getTime(),
            ':now': now.getTime(),
          },
        }),
      ),
    );
  }

  async recordAttempt(d: DeliveryRecord, next: DeliveryRecord, log: AttemptLog | null): Promise<void> {
    if (log) {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: pk(d.accountId),
            sk: `ATTEMPT#${d.targetId}#${log.at}#${d.eventId}#${String(log.attempt).padStart(3, '0')}`,
            ...log,
            expiresAt: this.expiresAt(),
          },
        }),
      );
    }
    // The state moves on only from the attempt this worker claimed: a late duplicate changes nothing.
    await conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: this.deliveryItem(next),
          ConditionExpression: '#state = :pending AND attempts = :attempts',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':pending': 'pending', ':attempts': d.attempts },
        }),
      ),
    );
  }

  async holdReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    token: string,
    now: Date,
    until: Date,
  ): Promise<boolean> {
    const free = 'attribute_not_exists(pk) OR #until < :now OR handedTo = :event';
    const hold = (update: string, line: string) =>
      conditional(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: pk(accountId), sk: `RECEIVER#${receiver}` },
            UpdateExpression: `SET #token = :token, #until = :until, expiresAt = :expires${update}`,
            ConditionExpression: `(${free}) AND ${line}`,
            ExpressionAttributeNames: {
              '#token': 'token',
              '#until': 'until',
              '#line': 'line',
              ...(update.includes('#event') ? { '#event': eventId } : {}),
            },
            ExpressionAttributeValues: {
              ':token': token,
              ':until': until.getTime(),
              ':expires': Math.floor(until.getTime() / 1000) + 3600,
              ':now': now.getTime(),
              ':event': eventId,
              ...(update.includes(':empty') ? { ':empty': {} } : {}),
            },
          }),
        ),
      );
    // A receiver with a line (the usual case once it was held): this delivery leaves the line as it
    // takes the receiver. One never held, or let go with an empty line: its line is made.
    return (
      (await hold(' REMOVE handedTo, #line.#event', 'attribute_exists(#line)')) ||
      hold(', #line = :empty REMOVE handedTo', 'attribute_not_exists(#line)')
    );
  }

  waitForReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    dueAt: string,
    now: Date,
    max: number,
  ): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(accountId), sk: `RECEIVER#${receiver}` },
          UpdateExpression: 'SET #line.#event = :due',
          ConditionExpression:
            'attribute_exists(#line) AND #until >= :now AND (size(#line) < :max OR attribute_exists(#line.#event))',
          ExpressionAttributeNames: { '#line': 'line', '#until': 'until', '#event': eventId },
          ExpressionAttributeValues: { ':due': dueAt, ':now': now.getTime(), ':max': max },
        }),
      ),
    );
  }

  async passReceiver(
    accountId: string,
    receiver: string,
    holder: ReceiverHolder,
    until: Date,
  ): Promise<string | null> {
    const key = { pk: pk(accountId), sk: `RECEIVER#${receiver}` };
    const [held, value] =
      'token' in holder ? ['#token = :holder', holder.token] : ['handedTo = :holder', holder.handedTo];
    // Read, then written on the condition that nothing changed the holder or the chosen one meanwhile;
    // a delivery joining the line between the two is read again.
    for (let round = 0; round < 5; round++) {
      const res = await this.db.send(
        new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }),
      );
      const item = res.Item;
      if (!item || ('token' in holder ? item.token !== value : item.handedTo !== value)) return null;
      const next = firstInLine((item.line ?? {}) as Record<string, string>);
      if (next === null) {
        const freed = await conditional(() =>
          this.db.send(
            new DeleteCommand({
              TableName: this.table,
              Key: key,
              ConditionExpression: `${held} AND (attribute_not_exists(#line) OR size(#line) = :zero)`,
              ExpressionAttributeNames: {
                '#line': 'line',
                ...('token' in holder ? { '#token': 'token' } : {}),
              },
              ExpressionAttributeValues: { ':holder': value, ':zero': 0 },
            }),
          ),
        );
        if (freed) return null;
        continue;
      }
      const handed = await conditional(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression:
              'SET handedTo = :next, #until = :until, expiresAt = :expires REMOVE #token, #line.#next',
            ConditionExpression: `${held} AND attribute_exists(#line.#next)`,
            ExpressionAttributeNames: {
              '#token': 'token',
              '#until': 'until',
              '#line': 'line',
              '#next': next,
            },
            ExpressionAttributeValues: {
              ':holder': value,
              ':next': next,
              ':until': until.getTime(),
              ':expires': Math.floor(until.getTime() / 1000) + 3600,
            },
          }),
        ),
      );
      if (handed) return next;
    }
    return null;
  }

  async restartDelivery(d: DeliveryRecord): Promise<void> {
    const current = await this.getDelivery(d.accountId, d.eventId, d.targetId);
    // Attempts keep counting (the log's numbering); the round and its retry window start now.
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: this.deliveryItem({ ...d, attempts: current?.attempts ?? 0 }),
      }),
    );
  }

  async leaseDue(accountId: string, eventId: string, targetId: string, until: Date): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: pk(accountId), sk: deliverySk(eventId, targetId) },
          UpdateExpression: 'SET dueAt = :until',
          ConditionExpression: 'attribute_exists(dueQueue)',
          ExpressionAttributeValues: { ':until': until.toISOString() },
        }),
      ),
    );
  }

  async attempts(
    accountId: string,
    targetId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ items: AttemptLog[]; next: string | null }> {
    const prefix = `ATTEMPT#${targetId}#`;
    // Newest first, from just before the cursor (the sort key of the last attempt of the page before).
    const res = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk(accountId), ':prefix': prefix },
        ...(page.cursor ? { ExclusiveStartKey: { pk: pk(accountId), sk: `${prefix}${page.cursor}` } } : {}),
        ScanIndexForward: false,
        Limit: page.limit + 1,
      }),
    );
    const rows = res.Items ?? [];
    const items = rows.slice(0, page.limit).map((item) => {
      const { pk: _pk, sk: _sk, expiresAt: _e, ...log } = item;
      return log as AttemptLog;
    });
    const last = rows.length > page.limit ? rows[page.limit - 1] : undefined;
    return { items, next: last ? String(last.sk).slice(prefix.length) : null };
  }

  async due(now: Date, limit: number): Promise<DueItem[]> {
    const res = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: WEBHOOKS_DUE.name,
        KeyConditionExpression: 'dueQueue = :due AND dueAt <= :now',
        ExpressionAttributeValues: { ':due': DUE, ':now': now.toISOString() },
        Limit: limit,
      }),
    );
    const items: DueItem[] = [];
    for (const item of res.Items ?? []) {
      const accountId = String(item.pk).slice('ACCOUNT#'.length);
      const [kind, eventId, targetId] = String(item.sk).split('#');
      if (kind === 'EVENT' && eventId) items.push({ kind: 'event', accountId, eventId });
      else if (kind === 'DELIVERY' && eventId && targetId)
        items.push({ kind: 'delivery', accountId, eventId, targetId });
    }
    return items;
  }
}
