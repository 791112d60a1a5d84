import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import dynalite from 'dynalite';
import { DynamoNoticeLedger } from '../../functions/lib/aws/notice-ledger.js';
import type { NoticeId } from '../../functions/lib/limits/notifier.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';

// The notice ledger's conditional writes on the local DynamoDB (dynalite): a notice is claimed,
// then marked sent only after the send; a released or expired claim is taken by the next caller.

const TABLE = 'notice-ledger-test';
let server: ReturnType<typeof dynalite>;
let raw: DynamoDBClient;
let db: DynamoDBDocumentClient;
let ledger: DynamoNoticeLedger;

describe('notice-ledger', () => {
  beforeAll(async () => {
    server = dynalite({ createTableMs: 0 }); // in memory
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    raw = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    db = DynamoDBDocumentClient.from(raw);
    await raw.send(
      new CreateTableCommand({
        TableName: TABLE,
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    ledger = new DynamoNoticeLedger(db, TABLE);
  });

  afterAll(async () => {
    raw?.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const T0 = new Date('2026-11-20T10:00:00Z');
  const at = (ms: number) => new Date(T0.getTime() + ms);
  const MINUTES_5 = 5 * 60_000;
  const notice = (accountId: string): NoticeId => ({ accountId, month: '2026-11', percent: 75 });

  describe('DynamoNoticeLedger', () => {
    test('a claimed notice is busy for others until marked sent, then sent for everyone', async () => {
      const n = notice('acct_a');
      const mine = await ledger.claim(n, T0, at(MINUTES_5));
      expect(mine).toEqual({ status: 'claimed', token: expect.any(String) });
      expect(await ledger.claim(n, at(1000), at(1000 + MINUTES_5))).toEqual({ status: 'busy' });
      await ledger.markSent(n, (mine as { token: string }).token, { sentAt: at(2000), used: 75, cap: 100 });
      expect(await ledger.claim(n, at(3000), at(3000 + MINUTES_5))).toEqual({ status: 'sent' });
      // Still sent after the claim's time has long passed.
      expect(await ledger.claim(n, at(10 * MINUTES_5), at(11 * MINUTES_5))).toEqual({ status: 'sent' });
    });

    test('a released claim (the send failed) is taken by the next caller at once', async () => {
      const n = notice('acct_b');
      const first = (await ledger.claim(n, T0, at(MINUTES_5))) as { token: string };
      await ledger.release(n, first.token);
      const next = await ledger.claim(n, at(1000), at(1000 + MINUTES_5));
      expect(next).toEqual({ status: 'claimed', token: expect.any(String) });
      expect((next as { token: string }).token).not.toBe(first.token);
    });

    test('an expired claim (its sender died) is taken over, and the old sender can neither release nor mark it', async () => {
      const n = notice('acct_c');
      const dead = (await ledger.claim(n, T0, at(MINUTES_5))) as { token: string };
      const heir = (await ledger.claim(n, at(MINUTES_5 + 1), at(2 * MINUTES_5))) as {
        status: string;
        token: string;
      };
      expect(heir.status).toBe('claimed');
      await ledger.release(n, dead.token); // no effect on the heir's claim
      expect(await ledger.claim(n, at(MINUTES_5 + 2), at(2 * MINUTES_5))).toEqual({ status: 'busy' });
      await expect(
        ledger.markSent(n, dead.token, { sentAt: at(MINUTES_5 + 3), used: 75, cap: 100 }),
      ).rejects.toThrow();
      await ledger.markSent(n, heir.token, { sentAt: at(MINUTES_5 + 4), used: 75, cap: 100 });
      const item = await db.send(
        new GetCommand({ TableName: TABLE, Key: { pk: 'ACCOUNT#acct_c', sk: 'NOTICE#2026-11#75' } }),
      );
      expect(item.Item).toMatchObject({ status: 'sent', sentAt: at(MINUTES_5 + 4).toISOString() });
      expect(item.Item?.token).toBeUndefined();
    });

    test('a notice recorded before claims existed (only sentAt) reads as sent', async () => {
      await db.send(
        new PutCommand({
          TableName: TABLE,
          Item: { pk: 'ACCOUNT#acct_old', sk: 'NOTICE#2026-11#75', sentAt: T0.toISOString(), expiresAt: 1 },
        }),
      );
      expect(await ledger.claim(notice('acct_old'), T0, at(MINUTES_5))).toEqual({ status: 'sent' });
    });

    test('a sent notice keeps the figures its e-mail carried and its own sent time; an item from before they were stored has sentAt alone', async () => {
      const month = '2026-11';
      const id = (percent: 75 | 90 | 100): NoticeId => ({ accountId: 'acct_fig', month, percent });
      for (const [percent, ms, used] of [
        [75, 1000, 45],
        [90, 1500, 45],
        [100, 9000, 50],
      ] as const) {
        const claim = (await ledger.claim(id(percent), at(ms - 10), at(ms + MINUTES_5))) as { token: string };
        await ledger.markSent(id(percent), claim.token, { sentAt: at(ms), used, cap: 50 });
      }
      expect(await ledger.sentIn('acct_fig', month, [75, 90, 100])).toEqual([
        { percent: 75, sentAt: at(1000).toISOString(), used: 45, cap: 50 },
        { percent: 90, sentAt: at(1500).toISOString(), used: 45, cap: 50 },
        { percent: 100, sentAt: at(9000).toISOString(), used: 50, cap: 50 },
      ]);
      // The item acct_old's test wrote, as notices marked sent before the figures were stored.
      expect(await ledger.sentIn('acct_old', month, [75, 90, 100])).toEqual([
        { percent: 75, sentAt: T0.toISOString() },
      ]);
    });
  });
});
