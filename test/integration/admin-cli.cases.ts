import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TABLES } from '../../functions/lib/aws/resources.js';
import { accountStore } from '../../functions/lib/aws/services.js';
import { webhookStore } from '../../functions/lib/aws/webhook-store-services.js';
import { changeEndpoint } from '../../functions/lib/webhooks/manage.js';
import { OUTPUTS } from '../../infra/outputs.js';
import {
  KEY_SHOWN_ONCE,
  regionOfOutputs,
  runAdmin,
  WEBHOOK_SECRET_SHOWN_ONCE,
} from '../../scripts/admin-cli.js';
import { afterKeyCache, clock, startTestStack, type TestStack } from '../support/local-stack.js';
import { startReceiver } from '../support/webhook-receiver.js';

// `npm run admin` run in this process against the running local stack: listing accounts and keys,
// and how it answers bad input (accounts.cases.ts covers creating and revoking, and one real process).
let stack: TestStack;

describe('admin-cli', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin([...args, '--data-dir', stack.dataDir], {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      clock,
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  describe('npm run admin: accounts and keys', () => {
    test('account list shows every account; account show one, with its keys', async () => {
      const created = JSON.parse(
        (await admin('account', 'create', '--plan', 'starter', '--email', 'ops@list.example', '--json'))
          .stdout,
      ) as { accountId: string };
      const secret = JSON.parse(
        (await admin('key', 'create', '--account', created.accountId, '--type', 'secret', '--json')).stdout,
      ) as { keyId: string; key: string };

      const listed = await admin('account', 'list', '--json');
      expect(listed.code).toBe(0);
      const { accounts } = JSON.parse(listed.stdout) as { accounts: { accountId: string; plan: string }[] };
      expect(accounts.map((a) => a.accountId)).toEqual(
        expect.arrayContaining([stack.dev.accountId, created.accountId]),
      );
      expect(accounts.find((a) => a.accountId === created.accountId)).toMatchObject({
        plan: 'starter',
        email: 'ops@list.example',
      });

      const shown = JSON.parse(
        (await admin('account', 'show', '--account', created.accountId, '--json')).stdout,
      );
      expect(shown).toMatchObject({ accountId: created.accountId, plan: 'starter', perMinute: 300 });
      expect(shown.keys).toEqual([
        {
          keyId: secret.keyId,
          accountId: created.accountId,
          type: 'secret',
          origins: [],
          revoked: false,
          createdAt: expect.any(String),
          last4: secret.key.slice(-4),
        },
      ]);
    });

    test("account update raises a capped account's monthly cap and limit; the API admits it again", async () => {
      const created = JSON.parse(
        (await admin('account', 'create', '--plan', 'starter', '--monthly-cap', '2', '--json')).stdout,
      ) as { accountId: string };
      const { key } = JSON.parse(
        (await admin('key', 'create', '--account', created.accountId, '--type', 'secret', '--json')).stdout,
      ) as { key: string };
      const lookup = () =>
        stack.call('GET', '/v1/lookup/8.8.8.8', { headers: { Authorization: `Bearer ${key}` } });
      expect((await lookup()).status).toBe(200);
      expect((await lookup()).status).toBe(200);
      expect((await lookup()).status).toBe(429);

      const updated = await admin(
        'account',
        'update',
        '--account',
        created.accountId,
        '--monthly-cap',
        '10',
        '--per-minute',
        '50',
        '--json',
      );
      expect(updated.code).toBe(0);
      expect(JSON.parse(updated.stdout)).toMatchObject({
        accountId: created.accountId,
        plan: 'starter',
        monthlyCap: 10,
        perMinute: 50,
      });
      // What was not named stays.
      expect(
        JSON.parse((await admin('account', 'show', '--account', created.accountId, '--json')).stdout),
      ).toMatchObject({
        monthlyCap: 10,
        perMinute: 50,
        includesSecurity: false,
      });
      afterKeyCache();
      expect((await lookup()).status).toBe(200);

      // Nothing to change, a bad number, an unknown account: usage errors, nothing written.
      expect((await admin('account', 'update', '--account', created.accountId)).code).toBe(2);
      expect(
        (await admin('account', 'update', '--account', created.accountId, '--monthly-cap', '0')).code,
      ).toBe(2);
      const unknown = await admin('account', 'update', '--account', 'acct_nope', '--monthly-cap', '5');
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('unknown account "acct_nope"');
    });

    test('key list shows ids, types, origins and revocation, never the keys or their hashes', async () => {
      const { accountId } = stack.dev;
      const revoked = JSON.parse(
        (await admin('key', 'create', '--account', accountId, '--type', 'secret', '--json')).stdout,
      ) as {
        key: string;
        keyId: string;
      };
      // The create took one of the account's live-key slots; the revoke gives it back.
      expect((await accountStore(stack.services).slots(accountId)).held.map((s) => s.keyId)).toContain(
        revoked.keyId,
      );
      await admin('key', 'revoke', '--key-id', revoked.keyId);
      expect((await accountStore(stack.services).slots(accountId)).held.map((s) => s.keyId)).not.toContain(
        revoked.keyId,
      );
      const { code, stdout } = await admin('key', 'list', '--account', accountId, '--json');
      expect(code).toBe(0);
      const { keys } = JSON.parse(stdout) as { keys: Record<string, unknown>[] };
      expect(keys.find((k) => k.keyId === revoked.keyId)).toMatchObject({ type: 'secret', revoked: true });
      expect(
        keys.some((k) => k.type === 'publishable' && (k.origins as string[]).includes('http://localhost:*')),
      ).toBe(true);
      expect(stdout).not.toContain(revoked.key);
      expect(stdout).not.toContain(stack.dev.secretKey);
      expect(keys.every((k) => !('keyHash' in k))).toBe(true);
    });

    test('stored text with control characters (a label written before labels refused them) is printed escaped, the JSON still the same value', async () => {
      const { accountId } = stack.dev;
      // ESC [2J clears a terminal; U+009B is the one-character CSI some terminals obey too.
      const label = 'ops\u001b[2J\u009b31mkey\r';
      const { keyId } = await accountStore(stack.services).createKey(
        accountId,
        'secret',
        [],
        clock.now(),
        label,
      );
      for (const json of [true, false]) {
        const { code, stdout } = await admin(
          'key',
          'list',
          '--account',
          accountId,
          ...(json ? ['--json'] : []),
        );
        expect(code).toBe(0);
        expect([...stdout].filter((c) => c !== '\n' && /\p{Cc}/u.test(c))).toEqual([]);
        const { keys } = JSON.parse(stdout) as { keys: { keyId: string; label?: string }[] };
        expect(keys.find((k) => k.keyId === keyId)?.label).toBe(label);
      }
      await admin('key', 'revoke', '--key-id', keyId);
    });

    test('key create says the key is shown once', async () => {
      const { code, stdout, stderr } = await admin(
        'key',
        'create',
        '--account',
        stack.dev.accountId,
        '--type',
        'secret',
      );
      expect(code).toBe(0);
      expect(JSON.parse(stdout).key).toMatch(/^ni_sec_/);
      expect(stderr).toBe(KEY_SHOWN_ONCE);
      expect(stderr).toContain('shown once');
    });

    test('key create --test makes a test key, listed with its mode', async () => {
      const { code, stdout } = await admin(
        'key',
        'create',
        '--account',
        stack.dev.accountId,
        '--type',
        'secret',
        '--test',
        '--json',
      );
      expect(code).toBe(0);
      const created = JSON.parse(stdout) as { key: string; keyId: string; mode: string };
      expect(created).toMatchObject({ key: expect.stringMatching(/^ni_test_sec_/), mode: 'test' });
      const listed = JSON.parse(
        (await admin('key', 'list', '--account', stack.dev.accountId, '--json')).stdout,
      ) as {
        keys: { keyId: string; mode?: string }[];
      };
      expect(listed.keys.find((k) => k.keyId === created.keyId)?.mode).toBe('test');
    });
  });

  describe('npm run admin: dashboard members', () => {
    test('account create --email makes the first member; member add, list and remove; one account per address', async () => {
      const created = JSON.parse(
        (await admin('account', 'create', '--plan', 'pro', '--email', 'Owner@Team.Example', '--json')).stdout,
      ) as { accountId: string };
      const list = async () =>
        (
          JSON.parse((await admin('member', 'list', '--account', created.accountId, '--json')).stdout) as {
            members: { email: string }[];
          }
        ).members.map((m) => m.email);
      expect(await list()).toEqual(['owner@team.example']);
      expect(
        (await admin('member', 'add', '--account', created.accountId, '--email', 'ops@team.example')).code,
      ).toBe(0);
      // Adding again is a no-op; the address of another account's member is refused.
      expect(
        (await admin('member', 'add', '--account', created.accountId, '--email', 'ops@team.example')).code,
      ).toBe(0);
      const other = await admin(
        'member',
        'add',
        '--account',
        stack.dev.accountId,
        '--email',
        'ops@team.example',
      );
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('already a member of another account');
      expect(await list()).toEqual(['owner@team.example', 'ops@team.example']);
      expect(
        (await admin('member', 'remove', '--account', created.accountId, '--email', 'ops@team.example')).code,
      ).toBe(0);
      expect(await list()).toEqual(['owner@team.example']);
      const gone = await admin(
        'member',
        'remove',
        '--account',
        created.accountId,
        '--email',
        'ops@team.example',
      );
      expect(gone.code).toBe(2);
      const bad = await admin('member', 'add', '--account', created.accountId, '--email', 'not-an-address');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('is not an e-mail address');
    });
  });

  describe("npm run admin: the account's own rules", () => {
    /** The `account rules changed` lines of a command's stderr (docs/rules.md: Who changed what). */
    const auditLines = (stderr: string) =>
      stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.message === 'account rules changed');

    test('rules travel, email and geofeed change them as the API would; a bad geofeed names its row', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-rules-'));
      try {
        const account = await accountStore(stack.services).createAccount('pro', {});
        const id = account.accountId;
        const shown = JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout);
        expect(shown).toMatchObject({ travel: { maxSpeedKmh: 1000, updatedBy: null }, geofeed: null });

        const travel = await admin('rules', 'travel', '--account', id, '--min-distance-km', '50', '--json');
        expect(travel.code).toBe(0);
        expect(JSON.parse(travel.stdout).travel).toMatchObject({
          minDistanceKm: 50,
          maxSpeedKmh: 1000,
          updatedBy: 'admin',
        });
        const badTravel = await admin('rules', 'travel', '--account', id, '--max-speed-kmh', '5');
        expect(badTravel.code).toBe(2);
        expect(badTravel.stderr).toContain('--max-speed-kmh must be a whole number from 100 to 20000');

        const rulesFile = join(dir, 'rules.json');
        await writeFile(rulesFile, JSON.stringify({ block: { tlds: ['zip'] }, relayAliases: 'review' }));
        const email = JSON.parse(
          (await admin('rules', 'email', '--account', id, '--file', rulesFile, '--json')).stdout,
        );
        expect(email.emailRules).toMatchObject({
          block: { tlds: ['zip'] },
          relayAliases: 'review',
          entries: 1,
        });

        const feed = join(dir, 'feed.csv');
        await writeFile(feed, '8.8.8.0/24,DE,,Berlin,\n10.0.0.0/8,DE,,,\n');
        const refused = await admin('rules', 'geofeed', '--account', id, '--file', feed);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain('line 2');
        await writeFile(feed, '8.8.8.0/24,DE,,Berlin,\n');
        const applied = JSON.parse(
          (await admin('rules', 'geofeed', '--account', id, '--file', feed, '--json')).stdout,
        );
        expect(applied.geofeed).toMatchObject({ prefixes: 1, updatedBy: 'admin' });
        const removed = JSON.parse(
          (await admin('rules', 'geofeed', '--account', id, '--delete', '--json')).stdout,
        );
        expect(removed.geofeed).toBeNull();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('rules geofeed with both --file and --delete is refused, the feed left as it was', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-geofeed-'));
      try {
        const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
        const feed = join(dir, 'feed.csv');
        await writeFile(feed, '8.8.8.0/24,DE,,Berlin,\n');
        expect((await admin('rules', 'geofeed', '--account', id, '--file', feed)).code).toBe(0);
        // Either option could be the one meant: the delete once went ahead and --file was dropped.
        const both = await admin('rules', 'geofeed', '--account', id, '--file', feed, '--delete');
        expect({ code: both.code, stdout: both.stdout, lines: both.stderr.split('\n') }).toEqual({
          code: 2,
          stdout: '',
          lines: [
            'error: --file and --delete do not go together: --file replaces the geofeed, --delete removes it',
            'hint: npm run admin -- rules geofeed --help',
          ],
        });
        const shown = JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout);
        expect(shown.geofeed).toMatchObject({ prefixes: 1 });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('--delete beside another rules command is refused before anything is read or changed; the rules stay', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-delete-'));
      try {
        const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
        const feed = join(dir, 'feed.csv');
        await writeFile(feed, '8.8.8.0/24,DE,,Berlin,\n');
        expect((await admin('rules', 'geofeed', '--account', id, '--file', feed)).code).toBe(0);
        const before = JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout);
        const rulesFile = join(dir, 'rules.json');
        await writeFile(rulesFile, JSON.stringify({ block: { tlds: ['zip'] } }));
        // The other command ran and --delete was dropped: the email rules were replaced.
        for (const args of [
          ['rules', 'email', '--account', id, '--file', rulesFile],
          ['rules', 'travel', '--account', id, '--min-seconds', '60'],
          ['rules', 'show', '--account', id],
          // Refused before the account is looked up.
          ['rules', 'email', '--account', 'acct_nope', '--file', rulesFile],
        ]) {
          const [, verb] = args;
          const refused = await admin(...args, '--delete');
          expect({
            args,
            code: refused.code,
            stdout: refused.stdout,
            lines: refused.stderr.split('\n'),
          }).toEqual({
            args,
            code: 2,
            stdout: '',
            lines: [
              `error: rules ${verb} does not take --delete`,
              'hint: --delete goes with rules geofeed: npm run admin -- rules geofeed --help',
            ],
          });
        }
        expect(JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout)).toEqual(before);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('rules travel takes whole numbers written as digits, within the API bounds; anything else is a usage error naming the option', async () => {
      const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
      const set = await admin('rules', 'travel', '--account', id, '--min-distance-km', '300', '--json');
      expect(JSON.parse(set.stdout).travel).toMatchObject({ minDistanceKm: 300 });
      // Number() read '' (an empty shell variable) as 0, which removed the distance floor, and 0x10
      // as 16; ' ', Infinity, NaN and 1e400 are no numbers. The API takes whole numbers only, so the
      // CLI reads digits, as its other numeric options (1e2 and 300.0 are refused too).
      for (const raw of [
        '',
        ' ',
        '0x10',
        '1e400',
        'Infinity',
        '-Infinity',
        'NaN',
        '1e2',
        '300.0',
        '12.5',
        '-1',
        '5001',
        '50km',
      ]) {
        // A value starting with a dash only in the --option=value form (Node's parser).
        const option = raw.startsWith('-') ? [`--min-distance-km=${raw}`] : ['--min-distance-km', raw];
        const refused = await admin('rules', 'travel', '--account', id, ...option);
        expect({ raw, code: refused.code, lines: refused.stderr.split('\n') }).toEqual({
          raw,
          code: 2,
          lines: [
            'error: --min-distance-km must be a whole number from 0 to 5000',
            'hint: npm run admin -- rules travel --help',
          ],
        });
      }
      for (const [option, raw, error] of [
        ['--max-speed-kmh', '', '--max-speed-kmh must be a whole number from 100 to 20000'],
        ['--min-seconds', '0x10', '--min-seconds must be a whole number from 0 to 86400'],
        ['--min-seconds', '86401', '--min-seconds must be a whole number from 0 to 86400'],
      ] as const) {
        const refused = await admin('rules', 'travel', '--account', id, option, raw, '--json');
        expect({ code: refused.code, stderr: refused.stderr }).toEqual({
          code: 2,
          stderr: JSON.stringify({ error, hint: 'npm run admin -- rules travel --help' }),
        });
      }
      // Nothing of the refused commands was applied.
      const shown = JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout);
      expect(shown.travel).toMatchObject({ maxSpeedKmh: 1000, minDistanceKm: 300, minSeconds: 0 });
      const zero = await admin('rules', 'travel', '--account', id, '--min-distance-km', '0', '--json');
      expect(JSON.parse(zero.stdout).travel).toMatchObject({ minDistanceKm: 0 });
    });

    test('--file is read as the API reads its body: a leading BOM ignored, bytes that are not UTF-8 refused', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-files-'));
      try {
        const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
        const rulesFile = join(dir, 'rules.json');
        const refusal = async (...args: string[]) => {
          const { code, stdout, stderr } = await admin('rules', ...args, '--account', id);
          return { code, stdout, lines: stderr.split('\n') };
        };
        const refused = (error: string, command: string) => ({
          code: 2,
          stdout: '',
          lines: [`error: ${error}`, `hint: npm run admin -- rules ${command} --help`],
        });

        // What PowerShell's Out-File and Notepad write: the API takes it, so does the CLI.
        const bom = Buffer.from([0xef, 0xbb, 0xbf]);
        const document = JSON.stringify({
          block: { domains: ['competitor.example'] },
          relayAliases: 'review',
        });
        await writeFile(rulesFile, Buffer.concat([bom, Buffer.from(document)]));
        const taken = await admin('rules', 'email', '--account', id, '--file', rulesFile, '--json');
        expect(taken.code).toBe(0);
        expect(JSON.parse(taken.stdout).emailRules).toMatchObject({
          block: { domains: ['competitor.example'] },
          relayAliases: 'review',
          entries: 1,
        });

        // Latin-1 on line 2: refused as the API refuses it (invalid_json), with its message.
        await writeFile(
          rulesFile,
          Buffer.concat([
            Buffer.from('{"block":\n{"domains":["caf'),
            Buffer.from([0xe9]),
            Buffer.from('.example"]}}'),
          ]),
        );
        expect(await refusal('email', '--file', rulesFile)).toEqual(
          refused(`${rulesFile}: The body is not UTF-8 (line 2).`, 'email'),
        );
        // Where it stops being JSON, never a quote of the file (JSON.parse's message quoted it).
        await writeFile(rulesFile, Buffer.concat([bom, Buffer.from('{"block": {"tlds": ["zip",]}}')]));
        expect(await refusal('email', '--file', rulesFile)).toEqual(
          refused(
            `${rulesFile}: The body is not valid JSON: expected a value at line 1, column 27.`,
            'email',
          ),
        );
        await writeFile(rulesFile, bom);
        expect(await refusal('email', '--file', rulesFile)).toEqual(
          refused(`${rulesFile}: A JSON body is required.`, 'email'),
        );
        const missing = join(dir, 'missing.json');
        expect(await refusal('email', '--file', missing)).toEqual(
          refused(`${missing}: cannot read it (ENOENT)`, 'email'),
        );

        // The geofeed is read as bytes: a stray Latin-1 byte is refused by its line, not stored as U+FFFD.
        const feed = join(dir, 'feed.csv');
        await writeFile(
          feed,
          Buffer.concat([
            Buffer.from('8.8.8.0/24,DE,,Berlin,\n9.9.9.0/24,DE,,M'),
            Buffer.from([0xfc]),
            Buffer.from('nchen,\n'),
          ]),
        );
        const notUtf8 = await admin('rules', 'geofeed', '--account', id, '--file', feed);
        expect(notUtf8.code).toBe(2);
        expect(notUtf8.stderr).toMatch(/line 2: the line is not UTF-8/);
        const shown = JSON.parse((await admin('rules', 'show', '--account', id, '--json')).stdout);
        expect(shown.emailRules).toMatchObject({ block: { domains: ['competitor.example'] } });
        expect(shown.geofeed).toBeNull();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('every change is logged on stderr as the API logs it (account rules changed), stdout stays the answer', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-audit-'));
      try {
        const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
        // Powertools' own keys besides (timestamp, sampling_rate); the audit facts exactly.
        const line = (audit: Record<string, unknown>) =>
          expect.objectContaining({
            level: 'INFO',
            message: 'account rules changed',
            service: 'netintel',
            accountId: id,
            audit,
          });

        for (const json of [['--json'], []]) {
          const travel = await admin('rules', 'travel', '--account', id, '--min-seconds', '60', ...json);
          expect(travel.code).toBe(0);
          const answer = JSON.parse(travel.stdout).travel;
          expect(auditLines(travel.stderr)).toEqual([
            line({
              rule: 'travel',
              at: answer.updatedAt,
              by: 'admin',
              settings: { maxSpeedKmh: 1000, minDistanceKm: 200, minSeconds: 60 },
            }),
          ]);
        }

        const rulesFile = join(dir, 'rules.json');
        await writeFile(
          rulesFile,
          JSON.stringify({ block: { tlds: ['zip', 'mov'] }, relayAliases: 'reject' }),
        );
        const email = await admin('rules', 'email', '--account', id, '--file', rulesFile, '--json');
        expect(auditLines(email.stderr)).toEqual([
          line({
            rule: 'emailRules',
            at: JSON.parse(email.stdout).emailRules.updatedAt,
            by: 'admin',
            entries: 2,
            relayAliases: 'reject',
          }),
        ]);

        const feed = join(dir, 'feed.csv');
        await writeFile(feed, '8.8.8.0/24,DE,,Berlin,\n9.9.9.0/24,FR,,,\n');
        const applied = await admin('rules', 'geofeed', '--account', id, '--file', feed, '--json');
        expect(auditLines(applied.stderr)).toEqual([
          line({
            rule: 'geofeed',
            at: JSON.parse(applied.stdout).geofeed.updatedAt,
            by: 'admin',
            prefixes: 2,
          }),
        ]);
        const removed = await admin('rules', 'geofeed', '--account', id, '--delete', '--json');
        expect(auditLines(removed.stderr)).toEqual([
          line({ rule: 'geofeed', action: 'deleted', at: expect.any(String), by: 'admin' }),
        ]);

        // Nothing changed, nothing logged: a refused change, a delete of no feed, a look.
        await writeFile(feed, '10.0.0.0/8,DE,,,\n');
        for (const args of [
          ['rules', 'geofeed', '--account', id, '--file', feed],
          ['rules', 'travel', '--account', id, '--max-speed-kmh', '5'],
          ['rules', 'geofeed', '--account', id, '--delete'],
          ['rules', 'show', '--account', id],
        ]) {
          expect(auditLines((await admin(...args)).stderr)).toEqual([]);
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe("npm run admin: an account's webhooks", () => {
    test('webhooks create prints the secret once; list, test, deliveries, redeliver, enable and delete as the API does', async () => {
      // On 127.0.0.1: the local stack allows loopback receivers (WEBHOOKS_ALLOW_LOOPBACK).
      const hook = await startReceiver([200]);
      try {
        const id = (await accountStore(stack.services).createAccount('pro', {})).accountId;
        const created = await admin(
          'webhooks',
          'create',
          id,
          '--url',
          hook.url,
          '--events',
          'job.completed,job.failed',
        );
        expect(created.code).toBe(0);
        const endpoint = JSON.parse(created.stdout) as { id: string; secret: string };
        expect(endpoint).toMatchObject({
          accountId: id,
          id: expect.stringMatching(/^we_/),
          url: hook.url,
          events: ['job.completed', 'job.failed'],
          status: 'enabled',
          secret: expect.stringMatching(/^whsec_/),
        });
        expect(created.stderr).toBe(WEBHOOK_SECRET_SHOWN_ONCE);

        const listed = await admin('webhooks', 'list', id, '--json');
        expect(listed.code).toBe(0);
        const { endpoints } = JSON.parse(listed.stdout) as { endpoints: { id: string }[] };
        expect(endpoints.map((e) => e.id)).toEqual([endpoint.id]);
        expect(listed.stdout).not.toContain('whsec_');

        const sent = JSON.parse((await admin('webhooks', 'test', id, endpoint.id, '--json')).stdout);
        expect(sent).toEqual({
          eventId: expect.stringMatching(/^evt_/),
          endpointId: endpoint.id,
          queued: true,
        });
        expect((await hook.nth(1)).event).toMatchObject({ id: sent.eventId, type: 'webhook.test' });
        const log = async () =>
          JSON.parse((await admin('webhooks', 'deliveries', id, endpoint.id, '--json')).stdout) as {
            deliveries: unknown[];
          };
        let page = await log();
        for (let round = 0; page.deliveries.length === 0 && round < 50; round++) {
          await stack.pollers.drained();
          page = await log();
        }
        expect(page.deliveries).toEqual([
          expect.objectContaining({ eventId: sent.eventId, attempt: 1, outcome: 'succeeded', status: 200 }),
        ]);

        const again = await admin('webhooks', 'redeliver', id, endpoint.id, sent.eventId, '--json');
        expect(JSON.parse(again.stdout)).toEqual(sent);
        expect((await hook.nth(2)).event.id).toBe(sent.eventId);
        const unknownEvent = await admin('webhooks', 'redeliver', id, endpoint.id, 'evt_nope');
        expect(unknownEvent.code).toBe(2);
        expect(unknownEvent.stderr).toContain('No event evt_nope');

        // Disabled (as after a day of failures), started again.
        await changeEndpoint(
          webhookStore(stack.services),
          { allowLoopback: true },
          id,
          endpoint.id,
          { enabled: false },
          clock.now(),
        );
        const enabled = JSON.parse((await admin('webhooks', 'enable', id, endpoint.id, '--json')).stdout);
        expect(enabled).toMatchObject({
          id: endpoint.id,
          status: 'enabled',
          disabledAt: null,
          disabledReason: null,
        });

        const refusedUrl = await admin(
          'webhooks',
          'create',
          id,
          '--url',
          'https://10.0.0.1/hook',
          '--events',
          'job.failed',
        );
        expect(refusedUrl.code).toBe(2);
        const refusedEvents = await admin(
          'webhooks',
          'create',
          id,
          '--url',
          hook.url,
          '--events',
          'job.nope',
        );
        expect(refusedEvents.code).toBe(2);
        expect(refusedEvents.stderr).toContain('events');

        expect(JSON.parse((await admin('webhooks', 'delete', id, endpoint.id, '--json')).stdout)).toEqual({
          accountId: id,
          endpointId: endpoint.id,
          deleted: true,
        });
        const gone = await admin('webhooks', 'delete', id, endpoint.id);
        expect(gone.code).toBe(2);
        expect(gone.stderr.split('\n')).toEqual([
          expect.stringMatching(/^error: No webhook endpoint/),
          expect.stringMatching(/^hint: npm run admin -- webhooks list ACCOUNT/),
        ]);
        const missing = await admin('webhooks', 'test', id);
        expect(missing.code).toBe(2);
        expect(missing.stderr.split('\n')).toEqual([
          expect.stringMatching(/^error: ENDPOINT is required/),
          'hint: npm run admin -- webhooks test --help',
        ]);
        const help = await admin('webhooks', '--help');
        expect(help.stdout).toContain('webhooks redeliver ACCOUNT ENDPOINT EVENT');
        expect(help.stdout).not.toContain('rules show');
      } finally {
        await hook.close();
      }
    });
  });

  describe('npm run admin: bad input', () => {
    test('is one error line and a hint to the command’s help, exit code 2, not the whole usage', async () => {
      for (const [args, error, hint] of [
        [
          ['account', 'create', '--plan', 'platinum'],
          'error: unknown plan "platinum"',
          'hint: npm run admin -- account create --help',
        ],
        [
          ['account', 'create', '--plan', 'free', '--per-minute', '-3'],
          'error: Option',
          'hint: npm run admin -- account create --help',
        ],
        // Past what is stored exactly (it reached DynamoDB's marshaller), or not digits (0x10 read as 16).
        ...['1e30', '9007199254740993', '0x10', '1e3', '99999999999999999999'].map(
          (cap) =>
            [
              ['account', 'create', '--plan', 'free', '--monthly-cap', cap],
              'error: --monthly-cap must be a whole number of 1 or more, at most 9007199254740991',
              'hint: npm run admin -- account create --help',
            ] as const,
        ),
        [['key', 'list'], 'error: --account is required', 'hint: npm run admin -- key list --help'],
        // Node's parser would keep the last copy, and drop a word after the command.
        [
          ['account', 'create', '--plan', 'free', '--plan', 'pro'],
          'error: --plan is given more than once',
          'hint: npm run admin -- account create --help',
        ],
        [
          ['account', 'list', 'everything'],
          'error: unexpected argument "everything" (account list takes options only)',
          'hint: npm run admin -- account list --help',
        ],
        [
          ['account', 'list', '--outputs', join(tmpdir(), 'no-such-outputs.json')],
          `error: --outputs ${join(tmpdir(), 'no-such-outputs.json')}: cannot read the stack outputs (ENOENT)`,
          'hint: write it with `npx cdk deploy --outputs-file cdk-outputs.json`',
        ],
        [['key', 'frob'], 'error: unknown command "key frob"', 'hint: npm run admin -- key --help'],
        [['nothing'], 'error: unknown command "nothing"', 'hint: npm run admin -- --help'],
        [
          ['account', 'show', '--account', 'acct_nope'],
          'error: unknown account "acct_nope"',
          'hint: npm run admin -- account list',
        ],
        [
          ['key', 'revoke', '--key-id', 'key_nope'],
          'error: unknown key id "key_nope"',
          'hint: npm run admin -- key list --account ID',
        ],
      ] as const) {
        const { code, stderr } = await admin(...args);
        const lines = stderr.split('\n');
        expect({ args, code, lines: lines.length }).toEqual({ args, code: 2, lines: 2 });
        expect(lines[0]!.startsWith(error)).toBe(true);
        expect(lines[1]!.startsWith(hint)).toBe(true);
      }
    });

    test('an option the command does not take is refused naming both, not dropped; the command is not run', async () => {
      const id = (await accountStore(stack.services).createAccount('starter', {})).accountId;
      for (const [args, error, hint] of [
        // --type is key create's: key list listed every key, the filter dropped.
        [
          ['key', 'list', '--account', id, '--type', 'secret'],
          'error: key list does not take --type',
          'hint: --type goes with key create: npm run admin -- key create --help',
        ],
        // --days is usage show's: the account was shown without it.
        [
          ['account', 'show', '--account', id, '--days', '7'],
          'error: account show does not take --days',
          'hint: --days goes with usage show: npm run admin -- usage show --help',
        ],
        // --account is taken by many commands: the hint is this one's usage.
        [
          ['account', 'list', '--account', id],
          'error: account list does not take --account',
          'hint: npm run admin -- account list --help',
        ],
        // The webhooks commands take the account as an argument: the hint says so, with the command to run.
        [
          ['webhooks', 'list', '--account', id],
          'error: webhooks list does not take --account',
          `hint: the account is its first argument: npm run admin -- webhooks list ${id}`,
        ],
        [
          ['webhooks', 'deliveries', '--account', id, 'we_1'],
          'error: webhooks deliveries does not take --account',
          `hint: the account is its first argument: npm run admin -- webhooks deliveries ${id} ENDPOINT [--limit N] [--cursor C]`,
        ],
        [
          ['webhooks', 'list', id, '--test'],
          'error: webhooks list does not take --test',
          'hint: --test goes with key create: npm run admin -- key create --help',
        ],
        // Made no account: refused before the plan, the store or the usage-plan keys.
        [
          ['account', 'create', '--plan', 'free', '--delete'],
          'error: account create does not take --delete',
          'hint: --delete goes with rules geofeed: npm run admin -- rules geofeed --help',
        ],
      ] as const) {
        const { code, stdout, stderr } = await admin(...args);
        expect({ args, code, stdout, lines: stderr.split('\n') }).toEqual({
          args,
          code: 2,
          stdout: '',
          lines: [error, hint],
        });
      }
      // --base-domain is the domain commands' (each one's checks use it), no other's.
      expect((await admin('domain', 'list', '--account', id, '--base-domain', 'x.example')).code).toBe(0);
      expect((await admin('account', 'list', '--base-domain', 'x.example')).stderr).toBe(
        'error: account list does not take --base-domain\nhint: --base-domain goes with the domain commands: npm run admin -- domain --help',
      );
      expect(
        (await admin('key', 'create', '--account', id, '--type', 'secret', '--test', '--json')).code,
      ).toBe(0);
    });

    test('with --json a refusal is one JSON object with its hint beside the error', async () => {
      for (const [args, expected] of [
        [['key', 'list'], { error: '--account is required', hint: 'npm run admin -- key list --help' }],
        [
          ['account', 'show', '--account', 'acct_nope'],
          {
            error: 'unknown account "acct_nope"',
            hint: 'npm run admin -- account list   shows the accounts',
          },
        ],
        [
          ['account', 'create', '--plan', 'free', '--plan', 'pro'],
          { error: '--plan is given more than once', hint: 'npm run admin -- account create --help' },
        ],
        [['nothing'], { error: 'unknown command "nothing"', hint: 'npm run admin -- --help' }],
        [
          ['account', 'list', '--outputs', join(tmpdir(), 'no-such-outputs.json')],
          {
            error: `--outputs ${join(tmpdir(), 'no-such-outputs.json')}: cannot read the stack outputs (ENOENT)`,
            hint: 'write it with `npx cdk deploy --outputs-file cdk-outputs.json`',
          },
        ],
      ] as const) {
        const { code, stdout, stderr } = await admin(...args, '--json');
        expect({ args, code, stdout, lines: stderr.split('\n').map((line) => JSON.parse(line)) }).toEqual({
          args,
          code: 2,
          stdout: '',
          lines: [expected],
        });
      }
    });

    test('a refused origin, member, hostname or webhook URL has its hint line too, saying what to do', async () => {
      const free = (await accountStore(stack.services).createAccount('free', {})).accountId;
      const pro = (await accountStore(stack.services).createAccount('pro', {})).accountId;
      expect((await admin('member', 'add', '--account', free, '--email', 'taken@hints.example')).code).toBe(
        0,
      );
      const origins =
        "hint: --origin takes each site the key is used from: --origin https://shop.example.com, --origin 'http://localhost:*'";
      const hostname =
        'hint: --hostname takes a name under a domain the customer registered, such as api.customer-shop.com';
      const url = "hint: --url takes the receiver's public https address, such as https://shop.example/hooks";
      for (const [args, error, hint] of [
        [
          ['key', 'create', '--account', pro, '--type', 'publishable'],
          'error: a publishable key needs at least one allowed origin',
          origins,
        ],
        [
          ['key', 'create', '--account', pro, '--type', 'publishable', '--origin', 'ftp://x'],
          'error: "ftp://x" is not an origin',
          origins,
        ],
        [
          ['member', 'remove', '--account', pro, '--email', 'nobody@hints.example'],
          `error: nobody@hints.example is not a member of account ${pro}`,
          "hint: npm run admin -- member list --account ID   shows an account's members",
        ],
        [
          ['member', 'add', '--account', pro, '--email', 'taken@hints.example'],
          'error: taken@hints.example is already a member of another account',
          'hint: an address signs in to one account: `member remove` it from the other account first',
        ],
        [
          ['domain', 'add', '--account', free, '--hostname', 'api.hints-shop.com'],
          `error: account ${free} (plan free) does not include custom hostnames`,
          'hint: npm run admin -- account update --account ID --custom-hostname true   gives the account custom hostnames',
        ],
        [
          ['domain', 'add', '--account', pro, '--hostname', 'localhost'],
          'error: "localhost" is not a public DNS name',
          hostname,
        ],
        [
          ['domain', 'add', '--account', pro, '--hostname', 'eu.api.netintel-test.com'],
          'error: "eu.api.netintel-test.com" is this service\'s own domain',
          hostname,
        ],
        [
          ['domain', 'remove', '--hostname', 'api.never-added-hints-shop.com'],
          'error: unknown hostname "api.never-added-hints-shop.com"',
          "hint: npm run admin -- domain list --account ID   shows an account's hostnames",
        ],
        [
          ['webhooks', 'create', pro, '--url', 'http://shop.example/hooks', '--events', 'job.failed'],
          'error: Webhooks are delivered over https only.',
          url,
        ],
        [
          ['webhooks', 'create', pro, '--url', 'https://10.0.0.1/hooks', '--events', 'job.failed'],
          'error: Webhooks go to public addresses only',
          url,
        ],
      ] as const) {
        // The domain commands' own domain; the others take no --base-domain.
        const base = args[0] === 'domain' ? ['--base-domain', 'api.netintel-test.com'] : [];
        const { code, stdout, stderr } = await admin(...args, ...base);
        const lines = stderr.split('\n');
        expect({ args, code, stdout, lines: lines.length }).toEqual({ args, code: 2, stdout: '', lines: 2 });
        expect(lines[0]!.startsWith(error)).toBe(true);
        expect(lines[1]).toBe(hint);
      }
      // The refused URLs were refused as written (a literal private address needs no resolution):
      // nothing stored, so nothing will ever be delivered there.
      const listed = await admin('webhooks', 'list', pro, '--json');
      expect(JSON.parse(listed.stdout)).toMatchObject({ endpoints: [] });
    });

    test('a DATA_DIR with no local data is refused, not made into an empty store; outputs that are not JSON too', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-typo-'));
      try {
        const missing = join(dir, '.dta');
        const err: string[] = [];
        const io = { out: () => undefined, err: (text: string) => err.push(text), clock };
        expect(await runAdmin(['account', 'list', '--data-dir', missing], io)).toBe(2);
        expect(err).toEqual([
          `error: no local data at ${missing}`,
          expect.stringMatching(/^hint: `npm start` creates it/),
        ]);
        expect(existsSync(missing)).toBe(false);
        const outputs = join(dir, 'outputs.json');
        await writeFile(outputs, 'Outputs:\n  NetIntel...');
        err.length = 0;
        expect(await runAdmin(['account', 'list', '--outputs', outputs], io)).toBe(2);
        expect(err[0]).toBe(`error: --outputs ${outputs}: cannot read the stack outputs (not JSON)`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('a damaged DATA_DIR/endpoints.json is named, with the way out; nothing is opened', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-endpoints-'));
      try {
        const file = join(dir, 'endpoints.json');
        const err: string[] = [];
        const io = { out: () => undefined, err: (text: string) => err.push(text), clock };
        // Cut short (a disk that filled up), or JSON of another shape.
        for (const text of ['{\n  "dynamodb": "http://127.0.0.1:4', '{,', '[]', '{"dynamodb": 4}']) {
          await writeFile(file, text);
          err.length = 0;
          expect({ text, code: await runAdmin(['account', 'list', '--data-dir', dir], io), err }).toEqual({
            text,
            code: 2,
            err: [
              `error: ${file} is damaged: it is not the addresses \`npm start\` writes there`,
              'hint: restart `npm start`: it writes the file again as it starts (with none running, delete the file)',
            ],
          });
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('--outputs without AWS_REGION takes the region from the outputs (the API and queue URLs hold it)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'admin-region-'));
      const saved = { ...process.env };
      // The local stack's region: its emulators stand in for the stack's tables.
      const region = process.env.AWS_REGION!;
      try {
        const outputs = join(dir, 'cdk-outputs.json');
        await writeFile(
          outputs,
          JSON.stringify({
            Netintel: {
              ...Object.fromEntries(TABLES.map((t) => [OUTPUTS.table(t.id), t.localName])),
              [OUTPUTS.restApiUrl]: `https://abc123defg.execute-api.${region}.amazonaws.com/prod/`,
            },
          }),
        );
        // No region from the environment or a profile: the SDK refused with "Region is missing".
        delete process.env.AWS_REGION;
        delete process.env.AWS_PROFILE;
        process.env.AWS_CONFIG_FILE = join(dir, 'no-aws-config');
        const shown = await admin('account', 'show', '--account', stack.dev.accountId, '--outputs', outputs);
        expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: '' });
        expect(JSON.parse(shown.stdout)).toMatchObject({ accountId: stack.dev.accountId });
        expect(process.env.AWS_REGION).toBe(region);
      } finally {
        // --outputs sets TABLE_* and AWS_REGION in this process: the other cases use the local stack.
        for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
        Object.assign(process.env, saved);
        await rm(dir, { recursive: true, force: true });
      }
    });

    test('regionOfOutputs reads the region from the API, queue or alarm topic outputs', () => {
      expect(
        regionOfOutputs({ RestApiUrl: 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/' }),
      ).toBe('eu-west-1');
      expect(
        regionOfOutputs({
          ApiUrl: 'https://api.shop.example/',
          JobsQueueUrl: 'https://sqs.ap-southeast-2.amazonaws.com/123456789012/Netintel-JobsQueue',
        }),
      ).toBe('ap-southeast-2');
      expect(
        regionOfOutputs({ AlarmTopicArn: 'arn:aws-us-gov:sns:us-gov-west-1:123456789012:Netintel-Alarms' }),
      ).toBe('us-gov-west-1');
      expect(
        regionOfOutputs({ ApiUrl: 'https://d111.cloudfront.net', TableAccountsName: 'x' }),
      ).toBeUndefined();
    });

    test('--help after a command prints that command’s usage; after an area, that area’s', async () => {
      const one = await admin('key', 'create', '--help');
      expect(one.code).toBe(0);
      expect(one.stdout).toContain('key create --account ID --type secret');
      expect(one.stdout).not.toContain('key revoke');
      const area = await admin('key', '--help');
      expect(area.stdout).toContain('key list --account ID');
      expect(area.stdout).toContain('key revoke --key-id ID');
      expect(area.stdout).not.toContain('account create');
      const all = await admin('--help');
      expect(all.stdout).toContain('account list');
      expect(all.stdout).toContain('domain remove');
    });
  });
});
