import { deliveryDueAt } from '../../../../functions/lib/webhooks/announce.js';
import { EMPTY_SET, type EndpointSet } from '../../../../functions/lib/webhooks/endpoints.js';
import type { WebhookEvent } from '../../../../functions/lib/webhooks/events.js';
import type {
  AttemptLog,
  DeliveryMessage,
  DeliveryQueue,
  DeliveryRecord,
  DueItem,
  JobReceiver,
  ReceiverHolder,
  StoredEvent,
  WebhookStore,
} from '../../../../functions/lib/webhooks/ports.js';
import { firstInLine } from '../../../../functions/lib/webhooks/ports.js';

// An in-memory WebhookStore with the conditions of the DynamoDB one (functions/lib/aws/webhook-store.ts):
// the endpoint set is written only at the version read, an event and a delivery are created only when
// absent, an attempt is claimed only while pending with the same attempts and no live claim, and an
// outcome is recorded only while pending with the same attempts; a receiver is held only when free,
// run out or handed to the delivery asking, and let go only by its holder. What is due mirrors the sparse index
// (dueQueue/dueAt): an event until it is announced, a pending delivery with attempts made and a next
// time; the sweep's lease moves a delivery's due time. Every value is copied in and out, as a
// database would, so a caller's object never aliases what is stored.

const copy = <T>(value: T): T => structuredClone(value);
const key = (...parts: string[]) => parts.join('\u0000');

interface EventRow {
  event: WebhookEvent;
  job?: JobReceiver;
  /** Set until the event is announced (the item's dueQueue/dueAt). */
  dueAt?: string;
}

interface DeliveryRow {
  record: DeliveryRecord;
  dueAt?: string;
}

interface AttemptRow {
  accountId: string;
  targetId: string;
  /** The sort key's part after `ATTEMPT#<targetId>#`: `<at>#<eventId>#<nnn>`, also the page cursor. */
  sk: string;
  log: AttemptLog;
}

/** The DynamoDB store's deliveryItem rule: a pending delivery with attempts made and a time is the sweep's. */
function deliveryDue(d: DeliveryRecord): string | undefined {
  return deliveryDueAt(d) ?? undefined;
}

export class MemoryWebhookStore implements WebhookStore {
  readonly sets = new Map<string, EndpointSet>();
  readonly events = new Map<string, EventRow>();
  readonly deliveries = new Map<string, DeliveryRow>();
  readonly attemptRows: AttemptRow[] = [];
  /** The name of every method called, in order. */
  readonly calls: string[] = [];

  async endpointSet(accountId: string): Promise<EndpointSet> {
    this.calls.push('endpointSet');
    return copy(this.sets.get(accountId) ?? EMPTY_SET);
  }

  async saveEndpointSet(accountId: string, set: EndpointSet, expected: number): Promise<boolean> {
    this.calls.push('saveEndpointSet');
    const current = this.sets.get(accountId);
    // As the DynamoDB condition: absent when 0 is expected, else present at that version.
    if (expected === 0 ? current !== undefined : current?.version !== expected) return false;
    this.sets.set(accountId, copy(set));
    return true;
  }

  async putEvent(event: WebhookEvent, job: JobReceiver | undefined, dueAt: Date): Promise<void> {
    this.calls.push('putEvent');
    const k = key(event.accountId, event.id);
    if (this.events.has(k)) return;
    this.events.set(k, {
      event: copy(event),
      ...(job ? { job: copy(job) } : {}),
      dueAt: dueAt.toISOString(),
    });
  }

  async getEvent(accountId: string, eventId: string): Promise<StoredEvent | undefined> {
    this.calls.push('getEvent');
    const row = this.events.get(key(accountId, eventId));
    if (!row) return undefined;
    return {
      event: copy(row.event),
      ...(row.job ? { job: copy(row.job) } : {}),
      announced: row.dueAt === undefined,
    };
  }

  async markAnnounced(accountId: string, eventId: string): Promise<void> {
    this.calls.push('markAnnounced');
    const row = this.events.get(key(accountId, eventId));
    if (row) delete row.dueAt;
  }

  async createDelivery(d: DeliveryRecord): Promise<boolean> {
    this.calls.push('createDelivery');
    const k = key(d.accountId, d.eventId, d.targetId);
    if (this.deliveries.has(k)) return false;
    this.write(d);
    return true;
  }

  async getDelivery(
    accountId: string,
    eventId: string,
    targetId: string,
  ): Promise<DeliveryRecord | undefined> {
    this.calls.push('getDelivery');
    const row = this.deliveries.get(key(accountId, eventId, targetId));
    return row ? copy(row.record) : undefined;
  }

  /**
   * Receivers, as the RECEIVER# items: the attempt in flight (token) or the delivery handed the
   * receiver next (handedTo), until when (ms), and the line (eventId: due time).
   */
  readonly receivers = new Map<
    string,
    { token?: string; handedTo?: string; until: number; line: Record<string, string> }
  >();

  async holdReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    token: string,
    now: Date,
    until: Date,
  ): Promise<boolean> {
    this.calls.push('holdReceiver');
    const key = `${accountId}#${receiver}`;
    const held = this.receivers.get(key);
    if (held && !(held.until < now.getTime()) && held.handedTo !== eventId) return false;
    // Taken by a delivery of its line: out of the line.
    const line = held?.line ?? {};
    delete line[eventId];
    this.receivers.set(key, { token, until: until.getTime(), line });
    return true;
  }

  async waitForReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    dueAt: string,
    now: Date,
    max: number,
  ): Promise<boolean> {
    this.calls.push('waitForReceiver');
    const held = this.receivers.get(`${accountId}#${receiver}`);
    if (!held || held.until < now.getTime()) return false;
    if (Object.keys(held.line).length >= max && !(eventId in held.line)) return false;
    held.line[eventId] = dueAt;
    return true;
  }

  async passReceiver(
    accountId: string,
    receiver: string,
    holder: ReceiverHolder,
    until: Date,
  ): Promise<string | null> {
    this.calls.push('passReceiver');
    const key = `${accountId}#${receiver}`;
    const held = this.receivers.get(key);
    if (!held || ('token' in holder ? held.token !== holder.token : held.handedTo !== holder.handedTo))
      return null;
    const next = firstInLine(held.line);
    if (next === null) {
      this.receivers.delete(key);
      return null;
    }
    delete held.line[next];
    this.receivers.set(key, { handedTo: next, until: until.getTime(), line: held.line });
    return next;
  }

  async claimAttempt(d: DeliveryRecord, now: Date, until: Date): Promise<boolean> {
    this.calls.push('claimAttempt');
    const row = this.deliveries.get(key(d.accountId, d.eventId, d.targetId));
    if (!row) return false;
    const current = row.record;
    if (current.state !== 'pending' || current.attempts !== d.attempts) return false;
    if (current.claimedUntil !== undefined && !(current.claimedUntil < now.getTime())) return false;
    current.claimedUntil = until.getTime();
    return true;
  }

  async recordAttempt(d: DeliveryRecord, next: DeliveryRecord, log: AttemptLog | null): Promise<void> {
    this.calls.push('recordAttempt');
    // The log entry is written whatever becomes of the state (as the DynamoDB store: first, unconditionally).
    if (log) {
      const sk = `${log.at}#${d.eventId}#${String(log.attempt).padStart(3, '0')}`;
      const existing = this.attemptRows.findIndex(
        (r) => r.accountId === d.accountId && r.targetId === d.targetId && r.sk === sk,
      );
      const row = { accountId: d.accountId, targetId: d.targetId, sk, log: copy(log) };
      if (existing >= 0) this.attemptRows[existing] = row;
      else this.attemptRows.push(row);
    }
    const current = this.deliveries.get(key(d.accountId, d.eventId, d.targetId))?.record;
    if (current?.state !== 'pending' || current.attempts !== d.attempts) return;
    this.write(next);
  }

  async restartDelivery(d: DeliveryRecord): Promise<void> {
    this.calls.push('restartDelivery');
    const current = this.deliveries.get(key(d.accountId, d.eventId, d.targetId))?.record;
    this.write({ ...d, attempts: current?.attempts ?? 0 });
  }

  async leaseDue(accountId: string, eventId: string, targetId: string, until: Date): Promise<void> {
    this.calls.push('leaseDue');
    const row = this.deliveries.get(key(accountId, eventId, targetId));
    if (row?.dueAt !== undefined) row.dueAt = until.toISOString();
  }

  async attempts(
    accountId: string,
    targetId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ items: AttemptLog[]; next: string | null }> {
    this.calls.push('attempts');
    const rows = this.attemptRows
      .filter((r) => r.accountId === accountId && r.targetId === targetId)
      .filter((r) => page.cursor === undefined || r.sk < page.cursor)
      .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0));
    const items = rows.slice(0, page.limit);
    const last = rows.length > page.limit ? items[items.length - 1] : undefined;
    return { items: items.map((r) => copy(r.log)), next: last ? last.sk : null };
  }

  async due(now: Date, limit: number): Promise<DueItem[]> {
    this.calls.push('due');
    const at = now.toISOString();
    const found: { dueAt: string; item: DueItem }[] = [];
    for (const row of this.events.values()) {
      if (row.dueAt !== undefined && row.dueAt <= at)
        found.push({
          dueAt: row.dueAt,
          item: { kind: 'event', accountId: row.event.accountId, eventId: row.event.id },
        });
    }
    for (const { record: d, dueAt } of this.deliveries.values()) {
      if (dueAt !== undefined && dueAt <= at)
        found.push({
          dueAt,
          item: { kind: 'delivery', accountId: d.accountId, eventId: d.eventId, targetId: d.targetId },
        });
    }
    found.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
    return found.slice(0, limit).map((f) => f.item);
  }

  /** A whole delivery item written: the record, and its due time by the DynamoDB store's rule. */
  private write(d: DeliveryRecord): void {
    const record = copy(d);
    for (const [k, v] of Object.entries(record))
      if (v === undefined) delete (record as unknown as Record<string, unknown>)[k];
    const dueAt = deliveryDue(record);
    this.deliveries.set(
      key(d.accountId, d.eventId, d.targetId),
      dueAt === undefined ? { record } : { record, dueAt },
    );
  }
}

/** A deliveries queue that keeps what it is sent; `failNext` makes the next sends throw. */
export class MemoryQueue implements DeliveryQueue {
  readonly sent: DeliveryMessage[] = [];
  private failures = 0;

  failNext(times = 1): void {
    this.failures += times;
  }

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('the queue is unavailable');
    }
    this.sent.push(...messages.map((m) => ({ ...m })));
  }

  /** The messages sent since the last take, removed. */
  take(): DeliveryMessage[] {
    return this.sent.splice(0, this.sent.length);
  }
}

/** A clock the tests move by hand. */
export class TestClock {
  private t: number;
  constructor(start: Date | string) {
    this.t = new Date(start).getTime();
  }
  readonly now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | string): void {
    this.t = new Date(at).getTime();
  }
}
