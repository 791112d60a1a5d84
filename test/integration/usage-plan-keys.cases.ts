import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { PLANS } from '../../functions/lib/accounts/plans.js';
import { TABLES, usagePlanIdVariable } from '../../functions/lib/aws/resources.js';
import { accountStore } from '../../functions/lib/aws/services.js';
import { environmentConfig } from '../../functions/lib/runtime/config.js';
import { createServices } from '../../functions/lib/runtime/services.js';
import { OUTPUTS } from '../../infra/outputs.js';
import { runAdmin } from '../../scripts/admin-cli.js';
import { type Emulators, startEmulators, useEndpoints } from '../../scripts/local/emulators.js';
import { snapshotEnv } from '../support/env.js';

// `npm run admin -- --outputs cdk-outputs.json account create|sync-keys` against a deployed stack:
// the Accounts table on the local DynamoDB, and API Gateway's REST API answered by a small server
// here (the SDK's normal path, through AWS_ENDPOINT_URL_API_GATEWAY), which records what it was asked.

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

const calls: Call[] = [];
let failNextUsagePlanKey = false;
let keys = 0;
let apiGateway: Server;
let emulators: Emulators;
let restoreEndpoints: () => void;
let dataDir: string;
let outputsFile: string;
let legacyOutputsFile: string;

function startApiGateway(): Promise<string> {
  apiGateway = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: Call = {
        method: req.method ?? '',
        path: req.url ?? '',
        body: text ? JSON.parse(text) : {},
      };
      calls.push(call);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      };
      if (call.method === 'POST' && call.path === '/apikeys') {
        return json(201, { id: `key${++keys}`, value: call.body.value, name: call.body.name, enabled: true });
      }
      const plan = /^\/usageplans\/([^/]+)\/keys$/.exec(call.path);
      if (call.method === 'POST' && plan) {
        if (failNextUsagePlanKey) {
          failNextUsagePlanKey = false;
          res.setHeader('x-amzn-ErrorType', 'NotFoundException');
          return json(404, { message: 'Invalid Usage Plan ID specified' });
        }
        return json(201, { id: call.body.keyId, type: 'API_KEY' });
      }
      if (call.method === 'DELETE' && call.path.startsWith('/apikeys/')) return void res.writeHead(202).end();
      json(404, { message: `no ${call.method} ${call.path}` });
    });
  });
  return new Promise((resolve) =>
    apiGateway.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(apiGateway.address() as AddressInfo).port}`),
    ),
  );
}

describe('usage-plan-keys', () => {
  let restoreEnv: () => void;
  beforeAll(async () => {
    // `--outputs` sets the stack's variables (tables, plans) in this process, as in the CLI's own.
    restoreEnv = snapshotEnv();
    dataDir = await mkdtemp(join(tmpdir(), 'netintel-plan-keys-'));
    emulators = await startEmulators(dataDir);
    restoreEndpoints = useEndpoints(emulators.endpoints);
    process.env.AWS_ENDPOINT_URL_API_GATEWAY = await startApiGateway();
    // What `cdk deploy --outputs-file` writes: {stack: {output: value}}, tables under their local names.
    const tables = Object.fromEntries(TABLES.map((t) => [OUTPUTS.table(t.id), t.localName]));
    const usagePlans = Object.fromEntries(PLANS.map((p) => [OUTPUTS.usagePlanId(p.id), `up-${p.id}`]));
    outputsFile = join(dataDir, 'cdk-outputs.json');
    legacyOutputsFile = join(dataDir, 'cdk-outputs-before-per-account-keys.json');
    await writeFile(outputsFile, JSON.stringify({ Netintel: { ...tables, ...usagePlans } }));
    await writeFile(legacyOutputsFile, JSON.stringify({ Netintel: tables }));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => apiGateway.close(() => resolve()));
    await emulators.stop();
    restoreEndpoints();
    restoreEnv();
    await rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    calls.length = 0;
  });

  /** The stores as the CLI sees them, once `--outputs` has set the stack's variables in this process. */
  function accounts() {
    return accountStore(createServices(environmentConfig()));
  }

  async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin([...args, '--json'], { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  describe('per-account usage-plan keys from the admin CLI (AWS mode)', () => {
    test("account create gives the account its own API key in its plan's usage plan and records it", async () => {
      const { code, out } = await admin('--outputs', outputsFile, 'account', 'create', '--plan', 'starter');
      expect(code).toBe(0);
      const created = JSON.parse(out) as { accountId: string; usagePlanKeyId: string };
      const [createKey, attach] = calls;
      expect(createKey).toMatchObject({ method: 'POST', path: '/apikeys', body: { enabled: true } });
      expect(String(createKey!.body.value)).toMatch(/^[0-9a-f]{40}$/);
      expect(attach).toEqual({
        method: 'POST',
        path: '/usageplans/up-starter/keys',
        body: { keyId: created.usagePlanKeyId, keyType: 'API_KEY' },
      });
      const account = await accounts().getAccount(created.accountId);
      expect(account?.usagePlanKey).toEqual({ id: created.usagePlanKeyId, value: createKey!.body.value });
    });

    test('sync-keys gives every account made before per-account keys its own, and only once', async () => {
      const legacy = [await accounts().createAccount('free', {}), await accounts().createAccount('pro', {})];
      const first = await admin('--outputs', outputsFile, 'account', 'sync-keys');
      expect(first.code).toBe(0);
      const report = JSON.parse(first.out) as { assigned: string[]; failed: unknown[] };
      expect(report.assigned).toEqual(expect.arrayContaining(legacy.map((a) => a.accountId)));
      expect(report.failed).toEqual([]);
      for (const a of legacy) {
        expect((await accounts().getAccount(a.accountId))?.usagePlanKey).toBeDefined();
        expect(calls.some((c) => c.path === `/usageplans/up-${a.plan}/keys`)).toBe(true);
      }
      calls.length = 0;
      const again = await admin('--outputs', outputsFile, 'account', 'sync-keys');
      expect(JSON.parse(again.out)).toEqual({ assigned: [], skipped: [], failed: [] });
      expect(calls).toEqual([]);
    });

    test('a key API Gateway would not attach is deleted, and the account keeps the shared key until sync-keys', async () => {
      failNextUsagePlanKey = true;
      const { code, err } = await admin('--outputs', outputsFile, 'account', 'create', '--plan', 'free');
      expect(code).toBe(1);
      expect(JSON.parse(err).error).toMatch(/was created, but its usage-plan key was not.*sync-keys/);
      expect(calls.map((c) => c.method)).toEqual(['POST', 'POST', 'DELETE']);
      expect(calls.at(-1)).toMatchObject({
        method: 'DELETE',
        path: expect.stringMatching(/^\/apikeys\/key\d+$/),
      });
      const accountId = /account (acct_\w+)/.exec(JSON.parse(err).error)![1]!;
      expect((await accounts().getAccount(accountId))?.usagePlanKey).toBeUndefined();
      const sync = await admin('--outputs', outputsFile, 'account', 'sync-keys');
      expect(JSON.parse(sync.out).assigned).toContain(accountId);
    });

    test('a stack deployed before per-account keys is named, and no account is made', async () => {
      for (const p of PLANS) delete process.env[usagePlanIdVariable(p.id)];
      const { code, err } = await admin(
        '--outputs',
        legacyOutputsFile,
        'account',
        'create',
        '--plan',
        'free',
      );
      expect(code).toBe(2);
      expect(JSON.parse(err).error).toContain(OUTPUTS.usagePlanId('free'));
      expect(calls).toEqual([]);
    });
  });
});
