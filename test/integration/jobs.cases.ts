import { gzipSync } from 'node:zlib';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jobStore } from '../../functions/lib/aws/job-services.js';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { failJob } from '../../functions/lib/jobs/process-chunk.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { a, type DnsServer, mx, startDnsServer, txt } from '../support/dns-server.js';
import { afterKeyCache, clock, startTestStack, type TestStack } from '../support/local-stack.js';

// Chunks of 3 rows here, so small lists have several chunks.
let stack: TestStack;
let dns: DnsServer;
let s3: S3Client;
let sqs: SQSClient;
let bearer: Record<string, string>;
let accountId: string;
/**
 * A call the emulator never answers fails (and the SDK retries it) instead of holding the test.
 * requestTimeout only throws with throwOnRequestTimeout (@smithy/node-http-handler 4.x); a body that
 * stops arriving is socketTimeout's (functions/lib/aws/call-bounds.ts).
 */
const EMULATOR_TIMEOUTS = {
  requestTimeout: 10_000,
  connectionTimeout: 5_000,
  socketTimeout: 10_000,
  throwOnRequestTimeout: true,
};

describe('jobs', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => {
        if (name === 'gone.example' || name === 'gmial.com') return 'nxdomain';
        if (name === 'webonly.example') return [a('192.0.2.10')];
        if (name === 'nomail.example') return [txt('v=spf1 -all')];
        return [mx(`mx.${name}`)];
      },
    });
    process.env.DNS_SERVERS = dns.address;
    process.env.JOB_CHUNK_ROWS = '3';
    stack = await startTestStack();
    s3 = new S3Client({
      endpoint: stack.endpoints.s3,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: LOCAL_CREDENTIALS,
      requestHandler: EMULATOR_TIMEOUTS,
    });
    sqs = new SQSClient({
      endpoint: stack.endpoints.sqs,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      requestHandler: EMULATOR_TIMEOUTS,
    });
    const account = await accountStore(stack.services).createAccount('pro', {});
    accountId = account.accountId;
    bearer = {
      Authorization: `Bearer ${(await accountStore(stack.services).createKey(accountId, 'secret', [])).key}`,
    };
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.JOB_CHUNK_ROWS;
  });

  interface JobBody {
    id: string;
    status: string;
    source: string;
    filename: string | null;
    total: number;
    credits: number;
    processed: number;
    summary: unknown;
    createdAt: string;
    completedAt: string | null;
    expiresAt: string;
  }

  const create = (body: unknown, headers: Record<string, string> = {}) =>
    stack.call('POST', '/v1/email/jobs', { headers: { ...bearer, ...headers }, body });
  const createCsv = (csv: string | Buffer, query = '', headers: Record<string, string> = {}) =>
    stack.call('POST', `/v1/email/jobs${query}`, {
      headers: { ...bearer, 'Content-Type': 'text/csv', ...headers },
      body: csv,
    });

  async function waitFor(id: string, statuses = ['completed', 'failed'], headers = bearer): Promise<JobBody> {
    for (let i = 0; i < 200; i++) {
      const job = (await (await stack.call('GET', `/v1/email/jobs/${id}`, { headers })).json()) as JobBody;
      if (statuses.includes(job.status)) return job;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${id} did not reach ${statuses}`);
  }

  async function results(id: string): Promise<string> {
    const res = await stack.call('GET', `/v1/email/jobs/${id}/results`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="netintel-results-[0-9a-f-]+\.csv"$/,
    );
    return res.text();
  }

  async function emailsOf(csv: string, query = ''): Promise<string[]> {
    const res = await createCsv(csv, query);
    expect(res.status).toBe(202);
    const job = await waitFor(((await res.json()) as JobBody).id);
    return (await results(job.id))
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => (line.startsWith('"') ? line.slice(1, line.indexOf('"', 1)) : line.split(',')[0]!));
  }

  const month = () => monthKey(new Date());
  const usage = async () => (await usageCounter(stack.services).read(accountId, month())).monthCount;

  describe('creating a job', () => {
    test('202 with the job object: queued, api, totals with duplicates, credits per distinct address, expiry in 7 days', async () => {
      const before = await usage();
      const res = await create({
        emails: ['a@x.example', 'a@x.example', 'A@x.example', 'b@y.example'],
        filename: 'list.csv',
      });
      expect(res.status).toBe(202);
      const job = (await res.json()) as JobBody;
      expect(job).toMatchObject({
        status: 'queued',
        source: 'api',
        filename: 'list.csv',
        total: 4,
        credits: 3,
        processed: 0,
        summary: null,
        completedAt: null,
      });
      expect(job.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Date.parse(job.expiresAt) - Date.parse(job.createdAt)).toBe(7 * 86_400_000);
      expect(await usage()).toBe(before + 3);
      const done = await waitFor(job.id);
      expect(done).toMatchObject({ status: 'completed', processed: 4 });
      expect(await usage()).toBe(before + 3); // polling is not billed
    });

    test('filename is optional and null when absent', async () => {
      const job = (await (await create({ emails: ['a@x.example'] })).json()) as JobBody;
      expect(job.filename).toBeNull();
    });

    test('bad bodies: 415, invalid_body, empty_job, job_too_large', async () => {
      const cases: [Response, number, string][] = [
        [
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'text/plain' },
            body: 'a@b.example',
          }),
          415,
          'unsupported_media_type',
        ],
        [
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'application/xml' },
            body: '<a/>',
          }),
          415,
          'unsupported_media_type',
        ],
        [
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'application/json' },
            body: '{"emails": [',
          }),
          400,
          'invalid_json',
        ],
        // Bytes that are not UTF-8, refused as every JSON body is (they were read as U+FFFD and charged).
        [
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'application/json' },
            body: Buffer.concat([
              Buffer.from('{"emails": ["a'),
              Buffer.from([0xff]),
              Buffer.from('@x.example"]}'),
            ]),
          }),
          400,
          'invalid_json',
        ],
        [await create({ emails: 'a@b.example' }), 400, 'invalid_body'],
        [await create({ emails: ['a@b.example', 3] }), 400, 'invalid_body'],
        [await create({ emails: ['a@b.example'], filename: 7 }), 400, 'invalid_body'],
        [await create({ uploadId: 'nope' }), 400, 'invalid_body'],
        [await create({ emails: [] }), 400, 'empty_job'],
        [await create({ emails: ['', '   ', '\t'] }), 400, 'empty_job'],
        [await createCsv('email\r\n\r\n'), 400, 'empty_job'],
        [
          await create({ emails: Array.from({ length: 100_001 }, (_, i) => `u${i}@x.example`) }),
          400,
          'job_too_large',
        ],
        [
          await createCsv(
            `email\n${Array.from({ length: 100_001 }, (_, i) => `u${i}@x.example`).join('\n')}`,
          ),
          400,
          'job_too_large',
        ],
        [await createCsv(Buffer.from([0xff, 0xfe, 0x00, 0x41])), 400, 'invalid_body'],
        [
          await createCsv(gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x61)), '', { 'Content-Encoding': 'gzip' }),
          413,
          'body_too_large',
        ],
        [
          await createCsv('email\na@b.example', '', { 'Content-Encoding': 'br' }),
          415,
          'unsupported_media_type',
        ],
      ];
      for (const [res, status, code] of cases) {
        expect(res.status).toBe(status);
        expect(((await res.json()) as { error: string }).error).toBe(code);
      }
    });

    test('a list that would exceed the monthly cap is rejected whole before anything is stored', async () => {
      const small = await accountStore(stack.services).createAccount('free', { monthlyCap: 5 });
      const key = {
        Authorization: `Bearer ${(await accountStore(stack.services).createKey(small.accountId, 'secret', [])).key}`,
      };
      const res = await stack.call('POST', '/v1/email/jobs', {
        headers: key,
        body: {
          emails: [
            '1@x.example',
            '2@x.example',
            '3@x.example',
            '4@x.example',
            '5@x.example',
            '6@x.example',
            '1@x.example',
          ],
        },
      });
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: string }).error).toBe('monthly_limit_exceeded');
      expect((await usageCounter(stack.services).read(small.accountId, month())).monthCount).toBe(0);
      const ok = await stack.call('POST', '/v1/email/jobs', {
        headers: key,
        body: { emails: ['1@x.example', '1@x.example', '2@x.example'] },
      });
      expect(ok.status).toBe(202);
      expect((await usageCounter(stack.services).read(small.accountId, month())).monthCount).toBe(2);
    });

    test('when storing fails the answer is 503 job_storage_unavailable and nothing is charged', async () => {
      const before = await usage();
      for (;;) {
        const objects = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET.localName }));
        if (!objects.Contents?.length) break;
        for (const o of objects.Contents)
          await s3.send(new DeleteObjectCommand({ Bucket: BUCKET.localName, Key: o.Key! }));
      }
      await s3.send(new DeleteBucketCommand({ Bucket: BUCKET.localName }));
      try {
        const res = await create({ emails: ['a@x.example', 'b@x.example'] });
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({ error: 'job_storage_unavailable', message: expect.any(String) });
        expect(await usage()).toBe(before);
      } finally {
        await s3.send(new CreateBucketCommand({ Bucket: BUCKET.localName }));
      }
    });
  });

  describe('CSV uploads', () => {
    test('comma, semicolon and tab separators are detected; the email column is found by header', async () => {
      expect(await emailsOf('name,email\nAnn,ann@x.example\nBob,bob@x.example\n')).toEqual([
        'ann@x.example',
        'bob@x.example',
      ]);
      expect(await emailsOf('Name;E-Mail;City\r\nAnn;ann@x.example;Oslo\r\n')).toEqual(['ann@x.example']);
      expect(await emailsOf('id\tEmail Address\n1\tann@x.example\n2\tbob@x.example\n')).toEqual([
        'ann@x.example',
        'bob@x.example',
      ]);
      expect(await emailsOf('MAIL,x\nann@x.example,1\n')).toEqual(['ann@x.example']);
      expect(await emailsOf('id,email_address\n1,ann@x.example\n')).toEqual(['ann@x.example']);
    });

    test('quotes, embedded separators and newlines, CRLF and a UTF-8 BOM', async () => {
      const csv =
        '\uFEFF"note","email"\r\n"a, ""quoted"" note","ann@x.example"\r\n"multi\r\nline",bob@x.example\r\n';
      expect(await emailsOf(csv)).toEqual(['ann@x.example', 'bob@x.example']);
    });

    test('without a matching header the first column is used; a header-looking first row is skipped, data is kept', async () => {
      expect(await emailsOf('ann@x.example,Ann\nbob@x.example,Bob\n')).toEqual([
        'ann@x.example',
        'bob@x.example',
      ]);
      expect(await emailsOf('Address,Name\nann@x.example,Ann\n')).toEqual(['ann@x.example']);
      expect(await emailsOf('ann@x.example\n')).toEqual(['ann@x.example']);
    });

    test('empty rows are skipped', async () => {
      expect(await emailsOf('email\n\nann@x.example\n,\n   \nbob@x.example\n\n')).toEqual([
        'ann@x.example',
        'bob@x.example',
      ]);
    });

    test('blank entries of a JSON list are skipped as empty CSV cells are: no row, no charge', async () => {
      const res = await create({ emails: ['', 'ann@x.example', '  ', 'bob@x.example', '\t'] });
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ total: 2, credits: 2 });
    });

    test('?filename= names a CSV job; gzip-compressed CSV is accepted', async () => {
      const res = await createCsv(gzipSync('email\nann@x.example\n'), '?filename=march.csv', {
        'Content-Encoding': 'gzip',
      });
      expect(res.status).toBe(202);
      const job = (await res.json()) as JobBody;
      expect(job).toMatchObject({ filename: 'march.csv', total: 1 });
    });
  });

  describe('results', () => {
    test('the results CSV, byte for byte, for a mixed list in submission order with duplicates', async () => {
      const emails = [
        'Alice@MX.example',
        'info@mx.example',
        '=cmd@@x',
        'x@gone.example',
        'y@webonly.example',
        'Alice@MX.example',
        'z@nomail.example',
        'a,b@x.example',
        '-dash@mx.example',
      ];
      const res = await create({ emails });
      const job = await waitFor(((await res.json()) as JobBody).id);
      expect(job.summary).toEqual({
        verdicts: { accept: 3, review: 2, reject: 4 },
        reasons: {
          invalid_syntax: 2,
          domain_not_found: 1,
          no_mail_server: 1,
          role_account: 1,
          implicit_mx: 1,
        },
      });
      expect(await results(job.id)).toBe(
        [
          'email,normalized_email,verdict,reasons,syntax_valid,is_disposable,disposable_source,is_free_provider,is_role_account,did_you_mean,mx_status,mx_host,is_relay_alias,relay_provider',
          'Alice@MX.example,alice@mx.example,accept,,true,false,,false,false,,found,mx.mx.example,false,',
          'info@mx.example,info@mx.example,review,role_account,true,false,,false,true,,found,mx.mx.example,false,',
          "'=cmd@@x,,reject,invalid_syntax,false,false,,false,false,,,,false,",
          'x@gone.example,x@gone.example,reject,domain_not_found,true,false,,false,false,,no_domain,,false,',
          'y@webonly.example,y@webonly.example,review,implicit_mx,true,false,,false,false,,implicit,,false,',
          'Alice@MX.example,alice@mx.example,accept,,true,false,,false,false,,found,mx.mx.example,false,',
          'z@nomail.example,z@nomail.example,reject,no_mail_server,true,false,,false,false,,none,,false,',
          '"a,b@x.example",,reject,invalid_syntax,false,false,,false,false,,,,false,',
          "'-dash@mx.example,'-dash@mx.example,accept,,true,false,,false,false,,found,mx.mx.example,false,",
          '',
        ].join('\r\n'),
      );
    });

    test('results are 409 job_not_completed while queued or processing', async () => {
      await stack.pollers.pause();
      try {
        const job = (await (await create({ emails: ['a@x.example'] })).json()) as JobBody;
        const res = await stack.call('GET', `/v1/email/jobs/${job.id}/results`, { headers: bearer });
        expect(res.status).toBe(409);
        expect(((await res.json()) as { error: string }).error).toBe('job_not_completed');
      } finally {
        stack.pollers.resume();
      }
    });

    test("unknown ids, malformed ids and other accounts' jobs are 404 job_not_found", async () => {
      const job = (await (await create({ emails: ['a@x.example'] })).json()) as JobBody;
      for (const [path, headers] of [
        ['/v1/email/jobs/00000000-0000-4000-8000-000000000000', bearer],
        ['/v1/email/jobs/not-a-uuid', bearer],
        [`/v1/email/jobs/${job.id}`, stack.secret()],
        [`/v1/email/jobs/${job.id}/results`, stack.secret()],
      ] as const) {
        const res = await stack.call('GET', path, { headers });
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: string }).error).toBe('job_not_found');
      }
    });
  });

  describe("the account's email rules", () => {
    test('a job is checked with the rules in force at its creation, whatever changes after', async () => {
      const put = (body: unknown) => stack.call('PUT', '/v1/account/email-rules', { headers: bearer, body });
      expect((await put({ block: { domains: ['mx.example'] } })).status).toBe(200);
      afterKeyCache();
      const res = await create({ emails: ['a@mx.example', 'b@other.example'] });
      expect(res.status).toBe(202);
      const { id } = (await res.json()) as JobBody;
      // Lifted before the rows may even have run: the job keeps what it was created with.
      expect((await put({})).status).toBe(200);
      afterKeyCache();
      await waitFor(id);
      const rows = (await results(id)).trim().split('\r\n').slice(1);
      expect(rows[0]).toMatch(/^a@mx\.example,a@mx\.example,reject,blocked_by_account,/);
      expect(rows[1]).not.toContain('blocked_by_account');
      // A job created now runs without the rule.
      const later = (await (await create({ emails: ['a@mx.example'] })).json()) as JobBody;
      await waitFor(later.id);
      expect(await results(later.id)).not.toContain('blocked_by_account');
    });
  });

  describe('delivery faults', () => {
    test('a chunk delivered twice is counted once', async () => {
      await stack.pollers.pause();
      let id: string;
      try {
        const job = (await (
          await create({ emails: Array.from({ length: 7 }, (_, i) => `u${i}@dup.example`) })
        ).json()) as JobBody;
        id = job.id;
        for (const chunk of [0, 0, 1, 2, 2]) {
          await sqs.send(
            new SendMessageCommand({
              QueueUrl: stack.endpoints.queueUrl,
              MessageBody: JSON.stringify({ jobId: id, chunk }),
            }),
          );
        }
      } finally {
        stack.pollers.resume();
      }
      const done = await waitFor(id!);
      expect(done).toMatchObject({ status: 'completed', total: 7, processed: 7 });
      await stack.pollers.drained(); // the duplicate deliveries are handled too
      expect(
        ((await (await stack.call('GET', `/v1/email/jobs/${id!}`, { headers: bearer })).json()) as JobBody)
          .processed,
      ).toBe(7);
      expect((await results(id!)).trim().split('\r\n')).toHaveLength(8);
    });

    test('two deliveries of one chunk at once: the summary describes the results file, whichever file was kept', async () => {
      await stack.pollers.pause();
      let id: string;
      try {
        const job = (await (await create({ emails: ['one@x.example', 'two@x.example'] })).json()) as JobBody;
        id = job.id;
        // Delivery A is counted; delivery B (running at the same time) stores its file after A's.
        const counted = await jobStore(stack.services).completeChunk(
          id,
          0,
          [
            [0, 'A0\r\n'],
            [1, 'A1\r\n'],
          ],
          { accept: 2 },
        );
        expect(counted?.doneChunks).toEqual([0]);
        expect(
          await jobStore(stack.services).completeChunk(
            id,
            0,
            [
              [0, 'B0\r\n'],
              [1, 'B1\r\n'],
            ],
            { reject: 2, no_mail_server: 2 },
          ),
        ).toBeUndefined();
        await jobStore(stack.services).finalize(counted!, new Date());
      } finally {
        stack.pollers.resume();
      }
      const done = await waitFor(id!);
      expect((await results(id!)).split('\r\n').slice(1, 3)).toEqual(['B0', 'B1']);
      expect(done.summary).toEqual({
        verdicts: { accept: 0, review: 0, reject: 2 },
        reasons: { no_mail_server: 2 },
      });
    });

    test('a processor that keeps failing mid-job sends chunks to the DLQ: the job fails and unprocessed credits return', async () => {
      const before = await usage();
      await stack.pollers.pause();
      let id: string;
      try {
        // 9 distinct addresses on three domains: chunks of 3, one per domain.
        const emails = ['a', 'b', 'c'].flatMap((d) => [1, 2, 3].map((n) => `u${n}@${d}.example`));
        const job = (await (await create({ emails })).json()) as JobBody;
        id = job.id;
        expect(job.credits).toBe(9);
        const record = await jobStore(stack.services).get(id);
        expect(record?.chunkCount).toBe(3);
        // Chunks 1 and 2 lose their payload: every delivery of them throws.
        for (const n of [1, 2])
          await s3.send(new DeleteObjectCommand({ Bucket: BUCKET.localName, Key: `chunks/${id}/${n}.json` }));
      } finally {
        stack.pollers.resume();
      }
      const failed = await waitFor(id!, ['failed']);
      expect(failed.processed).toBe(3);
      await stack.pollers.drained(); // the dead-lettered chunks are settled
      expect(await usage()).toBe(before + 9 - 6);
      const res = await stack.call('GET', `/v1/email/jobs/${id!}/results`, { headers: bearer });
      expect(res.status).toBe(409);
      // The refund was made once: another dead-lettered chunk of the job returns nothing more.
      expect(await failJob(jobStore(stack.services), usageCounter(stack.services), id!, new Date())).toBe(0);
      expect(await usage()).toBe(before + 9 - 6);
    }, 180_000);
  });

  describe('expiry', () => {
    test('after 7 days the job reads expired, results are 410, and the sweep deletes its objects', async () => {
      const job = await waitFor(((await (await create({ emails: ['a@x.example'] })).json()) as JobBody).id);
      expect(job.status).toBe('completed');
      clock.advance(7 * 86_400_000 + 1000);
      const read = (await (
        await stack.call('GET', `/v1/email/jobs/${job.id}`, { headers: bearer })
      ).json()) as JobBody;
      expect(read.status).toBe('expired');
      const res = await stack.call('GET', `/v1/email/jobs/${job.id}/results`, { headers: bearer });
      expect(res.status).toBe(410);
      expect(((await res.json()) as { error: string }).error).toBe('job_expired');
      expect(await stack.sweepJobs()).toBeGreaterThanOrEqual(1);
      for (const prefix of [`uploads/${job.id}`, `chunks/${job.id}/`, `results/${job.id}`]) {
        const left = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET.localName, Prefix: prefix }));
        expect(left.Contents ?? []).toHaveLength(0);
      }
    });
  });
});
