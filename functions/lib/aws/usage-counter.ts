import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, GetCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Charge, JobLedger } from '../jobs/job-charges.js';
import type { Counted, CountRequest, Opened, UsageCounter, UsageState } from '../limits/admission.js';
import type { LeaseRecord } from '../limits/leases.js';
import { type DaySnapshot, monthsBetween, type UsageRecords } from '../limits/usage-history.js';
import type { UsageReader } from '../limits/usage-report.js';
import { dayOfWindow } from '../limits/windows.js';
import { leaseKey } from './lease-store.js';

// Layout: one item per account and month, pk ACCOUNT#<id>, sk MONTH#<yyyy-mm>, holding the current
// minute window and its count, the month total and one total per meter. The primitives of the
// UsageCounter port; the rules that combine them are limits/admission.ts admit(). The usual request
// costs one conditional UpdateItem; the first call of a minute and refused calls cost one GetItem
// more. A call counts in the stored minute window when that is its own or a newer one.

// Daily history (limits/usage-history.ts): the call that opens a minute gets the item as it was
// (ALL_OLD) and writes the month's totals at the end of the closed window on that window's day,
// pk ACCOUNT#<id>, sk DAY#<yyyy-mm-dd>: cum_<meter> per meter, cumMonth, and foldWindow, the window
// they are the end of. One UpdateItem per account and minute, conditional on foldWindow being older,
// so a replayed or late snapshot never replaces a newer one. Read on demand: one Query of the day
// items and a GetItem per month.

// List jobs leave markers named by their id on the item (jobs/job-charges.ts): hold_<jobId> from
// the admission that charged the creation until it is confirmed or refunded, refunded_<jobId> from
// the write that returned a failed job's unprocessed credits (kept: it is what makes a repeat a
// no-op, and failed jobs are few).

const YEAR_SECONDS = 400 * 24 * 3600;

const holdAttribute = (jobId: string) => `hold_${jobId}`;
const LEASE_PREFIX = 'lease_';
const leaseAttribute = (leaseId: string) => `${LEASE_PREFIX}${leaseId}`;
const refundedAttribute = (jobId: string) => `refunded_${jobId}`;

export function usageKey(accountId: string, month: string) {
  return { pk: `ACCOUNT#${accountId}`, sk: `MONTH#${month}` };
}

/** The day item of `day` ("2026-11-24"). */
export function usageDayKey(accountId: string, day: string) {
  return { pk: `ACCOUNT#${accountId}`, sk: `DAY#${day}` };
}

/** The counters of a month item as stored (none: nothing counted yet). */
function stateOf(item: Record<string, unknown> = {}): UsageState {
  return {
    window: Number(item.window ?? -1),
    minuteCount: Number(item.minuteCount ?? 0),
    monthCount: Number(item.monthCount ?? 0),
    meters: attributesNamed('meter_', item),
    reserved: Number(item.reserved ?? 0),
    leases: Object.keys(attributesNamed(LEASE_PREFIX, item)),
  };
}

/** The numbers of the attributes named `prefix<name>`, by name. */
function attributesNamed(prefix: string, item: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(item))
    if (k.startsWith(prefix)) out[k.slice(prefix.length)] = Number(v);
  return out;
}

function snapshotOf(item: Record<string, unknown>): DaySnapshot {
  return {
    day: String(item.sk).slice('DAY#'.length),
    window: Number(item.foldWindow),
    monthCount: Number(item.cumMonth ?? 0),
    meters: attributesNamed('cum_', item),
  };
}

export class DynamoUsageCounter implements UsageCounter, UsageReader, JobLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    /**
     * For the counting writes (`ADD` whose condition still holds after it was applied): one attempt,
     * as a timed-out write may have been applied and a retry would count it twice
     * (aws/dynamo-client.ts dynamoSingleAttempt). Everything else may be retried.
     */
    private readonly counting: DynamoDBDocumentClient = db,
  ) {}

  countInWindow(req: CountRequest): Promise<Counted | undefined> {
    return this.tryCount(req, 'same');
  }

  openWindow(req: CountRequest): Promise<Opened | undefined> {
    return this.tryCount(req, 'new');
  }

  async snapshotDay(accountId: string, closed: UsageState): Promise<void> {
    const names: Record<string, string> = { '#fold': 'foldWindow' };
    const values: Record<string, number> = {
      ':w': closed.window,
      ':month': closed.monthCount,
      // Kept as long as the month items: the 400 days after the window.
      ':exp': closed.window * 60 + YEAR_SECONDS,
    };
    const sets = ['#fold = :w', 'cumMonth = :month', 'expiresAt = :exp'];
    Object.entries(closed.meters).forEach(([meter, units], i) => {
      names[`#m${i}`] = `cum_${meter}`;
      values[`:m${i}`] = units;
      sets.push(`#m${i} = :m${i}`);
    });
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: usageDayKey(accountId, dayOfWindow(closed.window)),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_not_exists(#fold) OR #fold < :w',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (err) {
      // The day holds a later window's totals already: they include these.
      if (err instanceof ConditionalCheckFailedException) return;
      throw err;
    }
  }

  /**
   * What the usage of the days `fromDay` to `toDay` is computed from (usage-history.ts dailyUsage):
   * the day items from the first of `fromDay`'s month (a day's usage needs the snapshot before it)
   * and the month items of the range, at most 4 for 90 days.
   */
  async history(accountId: string, fromDay: string, toDay: string): Promise<UsageRecords> {
    const months = monthsBetween(fromDay, toDay);
    const snapshots: DaySnapshot[] = [];
    const pages = paginateQuery(
      { client: this.db },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': usageDayKey(accountId, '').pk,
          ':from': usageDayKey(accountId, `${months[0]}-01`).sk,
          ':to': usageDayKey(accountId, toDay).sk,
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) snapshots.push(...(page.Items ?? []).map(snapshotOf));
    const states = await Promise.all(months.map((month) => this.read(accountId, month)));
    return { snapshots, months: Object.fromEntries(months.map((month, i) => [month, states[i]!])) };
  }

  async refund(req: Parameters<UsageCounter['refund']>[0]): Promise<void> {
    if (req.units <= 0) return;
    const meterAttr = req.meter ? ', #meter :neg' : '';
    await this.counting.send(
      new UpdateCommand({
        TableName: this.table,
        Key: usageKey(req.accountId, req.month),
        UpdateExpression: `ADD monthCount :neg${meterAttr}`,
        ExpressionAttributeNames: req.meter ? { '#meter': `meter_${req.meter}` } : undefined,
        ExpressionAttributeValues: { ':neg': -req.units },
      }),
    );
  }

  async settleLease(lease: LeaseRecord): Promise<boolean> {
    // The unused minute slots go back only while the stored minute is the lease's own: a condition
    // cannot guard part of a write, so the first try includes them and the second (a later minute
    // is open) leaves them out. Either is the one write that removes the marker.
    for (const minute of [true, false]) {
      const meter = lease.meter ? ', #meter :back' : '';
      const slots = minute ? ', minuteCount :slots' : '';
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.table,
            Key: usageKey(lease.accountId, lease.month),
            UpdateExpression: `ADD monthCount :back, reserved :reserved${meter}${slots} REMOVE #lease`,
            ConditionExpression: minute
              ? 'attribute_exists(#lease) AND #window = :window'
              : 'attribute_exists(#lease)',
            ExpressionAttributeNames: {
              '#lease': leaseAttribute(lease.id),
              ...(lease.meter ? { '#meter': `meter_${lease.meter}` } : {}),
              ...(minute ? { '#window': 'window' } : {}),
            },
            ExpressionAttributeValues: {
              ':back': -(lease.units - lease.usedUnits),
              ':reserved': -lease.units,
              ...(minute ? { ':slots': -(lease.calls - lease.usedCalls), ':window': lease.window } : {}),
            },
          }),
        );
        return true;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    }
    return false;
  }

  async leases(accountId: string, ids: string[]): Promise<LeaseRecord[]> {
    // An account has a lease per container and meter at most: one BatchGetItem (100 keys) holds them.
    const res = await this.db.send(
      new BatchGetCommand({
        RequestItems: {
          [this.table]: {
            Keys: ids.slice(0, 100).map((id) => leaseKey(accountId, id)),
            ConsistentRead: true,
          },
        },
      }),
    );
    return (res.Responses?.[this.table] ?? []).map((item) => item.lease as LeaseRecord);
  }

  async read(accountId: string, month: string): Promise<UsageState> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: usageKey(accountId, month), ConsistentRead: true }),
    );
    return stateOf(res.Item);
  }

  // JobLedger: each a single write on the month item, conditional on the job's marker.

  async isHeld(charge: Charge): Promise<boolean> {
    const res = await this.db.send(
      new GetCommand({
        TableName: this.table,
        Key: usageKey(charge.accountId, charge.month),
        ProjectionExpression: '#hold',
        ExpressionAttributeNames: { '#hold': holdAttribute(charge.jobId) },
        ConsistentRead: true,
      }),
    );
    return res.Item?.[holdAttribute(charge.jobId)] !== undefined;
  }

  async release(charge: Charge): Promise<void> {
    await this.marked(charge, 'REMOVE #marker', 'attribute_exists(#marker)', holdAttribute(charge.jobId));
  }

  refundHeld(charge: Charge): Promise<boolean> {
    return this.marked(
      charge,
      'ADD monthCount :neg, #meter :neg REMOVE #marker',
      'attribute_exists(#marker)',
      holdAttribute(charge.jobId),
    );
  }

  refundOnce(charge: Charge): Promise<boolean> {
    return this.marked(
      charge,
      'ADD monthCount :neg, #meter :neg SET #marker = :units',
      'attribute_not_exists(#marker)',
      refundedAttribute(charge.jobId),
    );
  }

  /** One write on the month item conditional on a job's marker; false when the condition failed. */
  private async marked(charge: Charge, update: string, condition: string, marker: string): Promise<boolean> {
    // DynamoDB refuses placeholders the expressions do not use.
    const values: Record<string, number> = {};
    if (update.includes(':neg')) values[':neg'] = -charge.units;
    if (update.includes(':units')) values[':units'] = charge.units;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: usageKey(charge.accountId, charge.month),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: {
            '#marker': marker,
            ...(update.includes('#meter') ? { '#meter': `meter_${charge.meter}` } : {}),
          },
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /** One conditional write; undefined when its condition failed. */
  private async tryCount(req: CountRequest, mode: 'same' | 'new'): Promise<Opened | undefined> {
    const calls = req.calls ?? 1;
    const names: Record<string, string> = { '#window': 'window' };
    const values: Record<string, unknown> = { ':w': req.window, ':calls': calls, ':units': req.units };
    const conditions: string[] = [];
    let update: string;
    if (mode === 'same') {
      // Room for all the calls (a lease's block) in the minute.
      conditions.push('#window >= :w', 'minuteCount <= :minuteBefore');
      values[':minuteBefore'] = req.perMinute - calls;
      update = 'ADD minuteCount :calls, monthCount :units';
    } else {
      conditions.push('(attribute_not_exists(#window) OR #window < :w)');
      update =
        'SET #window = :w, minuteCount = :calls, expiresAt = if_not_exists(expiresAt, :exp) ADD monthCount :units';
      values[':exp'] = Math.floor(Date.now() / 1000) + YEAR_SECONDS;
    }
    if (req.lease) {
      update += ', reserved :units';
      names['#lease'] = leaseAttribute(req.lease);
      update = update.startsWith('SET ')
        ? update.replace('SET ', 'SET #lease = :units, ')
        : `SET #lease = :units ${update}`;
    }
    if (req.units > 0) {
      conditions.push('(attribute_not_exists(monthCount) OR monthCount <= :room)');
      values[':room'] = req.monthlyCap - req.units;
    }
    if (req.meter && req.units > 0) {
      update += ', #meter :units';
      names['#meter'] = `meter_${req.meter}`;
    }
    if (req.hold) {
      names['#hold'] = holdAttribute(req.hold);
      update =
        mode === 'same' ? `SET #hold = :units ${update}` : update.replace('SET ', 'SET #hold = :units, ');
    }
    try {
      const res = await this.counting.send(
        new UpdateCommand({
          TableName: this.table,
          Key: usageKey(req.accountId, req.month),
          UpdateExpression: update,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          // The whole item: the minute window and its count (X-RateLimit-*) as well as the month.
          // An open returns it as it was: the closed window's totals, for its day's snapshot.
          ReturnValues: mode === 'same' ? 'ALL_NEW' : 'ALL_OLD',
        }),
      );
      if (mode === 'new') {
        // The write set the window to :w with this call as its first, and added its units.
        const old = stateOf(res.Attributes);
        return {
          monthBefore: old.monthCount,
          monthAfter: old.monthCount + req.units,
          window: req.window,
          minuteCount: calls,
          ...(old.window >= 0 ? { closed: old } : {}),
        };
      }
      const after = Number(res.Attributes?.monthCount ?? req.units);
      return {
        monthBefore: after - req.units,
        monthAfter: after,
        window: Number(res.Attributes?.window ?? req.window),
        minuteCount: Number(res.Attributes?.minuteCount ?? 1),
      };
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }
}
