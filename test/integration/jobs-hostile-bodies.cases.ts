import { gzipSync } from 'node:zlib';
import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { landingKey } from '../../functions/lib/aws/job-keys.js';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { minuteWindow, monthKey } from '../../functions/lib/limits/windows.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';

// Hardening, "Bounded work for small hostile bodies" and "Inputs that must work": list-job bodies
// that are small on the wire and huge once read, every encoding docs/api.md promises, and the size
// limit of the upload URL, on the local stack over HTTP.

const MB = 1024 * 1024;
let stack: TestStack;
let dns: DnsServer;
let s3: S3Client;

describe('jobs-hostile-bodies', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
    s3 = new S3Client({
      endpoint: stack.endpoints.s3,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: LOCAL_CREDENTIALS,
    });
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  async function newAccount(overrides: { perMinute?: number } = {}) {
    const account = await accountStore(stack.services).createAccount('pro', overrides);
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    return { accountId: account.accountId, bearer: { Authorization: `Bearer ${key}` } };
  }

  async function expectError(res: Response, status: number, error: string): Promise<string> {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string; message: string };
    expect(body).toEqual({ error, message: expect.any(String) });
    return body.message;
  }

  /** 10 MB of "a\n": 5 million one-letter rows, about 10 KB once gzip-compressed. */
  const rowBomb = () => gzipSync(Buffer.alloc(10 * MB, 'a\n'));

  const postCsv = (
    bearer: Record<string, string>,
    body: Buffer | string,
    headers: Record<string, string> = {},
  ) =>
    stack.call('POST', '/v1/email/jobs', {
      headers: { ...bearer, 'Content-Type': 'text/csv', ...headers },
      body,
    });

  interface UploadTicket {
    uploadId: string;
    uploadUrl: string;
    method: string;
    fields: Record<string, string>;
    maxBytes: number;
  }

  async function ticketFor(bearer: Record<string, string>): Promise<UploadTicket> {
    const res = await stack.call('POST', '/v1/email/jobs/uploads', { headers: bearer });
    expect(res.status).toBe(201);
    return (await res.json()) as UploadTicket;
  }

  function postUpload(
    ticket: UploadTicket,
    file: Buffer | string,
    fields = ticket.fields,
  ): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([file]), 'list.csv');
    return fetch(ticket.uploadUrl, { method: 'POST', body: form });
  }

  describe('bounded work for small hostile bodies', () => {
    test('a 10 KB gzip row bomb is refused 400 job_too_large, counted against the minute, not the month', async () => {
      const { accountId, bearer } = await newAccount();
      const at = freshMinute();
      const body = rowBomb();
      expect(body.length).toBeLessThan(20 * 1024);
      const message = await expectError(
        await postCsv(bearer, body, { 'Content-Encoding': 'gzip' }),
        400,
        'job_too_large',
      );
      expect(message).toMatch(/at most 100000 addresses/);
      expect(await usageCounter(stack.services).read(accountId, monthKey(at))).toMatchObject({
        window: minuteWindow(at),
        minuteCount: 1,
        monthCount: 0,
      });
    });

    test('refused calls fill the per-minute window: past the limit the answer is 429 rate_limit_exceeded', async () => {
      const { accountId, bearer } = await newAccount({ perMinute: 2 });
      const at = freshMinute();
      for (let i = 0; i < 2; i++) {
        await expectError(
          await postCsv(bearer, rowBomb(), { 'Content-Encoding': 'gzip' }),
          400,
          'job_too_large',
        );
      }
      const third = await postCsv(bearer, rowBomb(), { 'Content-Encoding': 'gzip' });
      await expectError(third, 429, 'rate_limit_exceeded');
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await usageCounter(stack.services).read(accountId, monthKey(at))).monthCount).toBe(0);
    });

    test('a gzip JSON body of 10 MB (2.6 million tiny strings) is refused 400 job_too_large', async () => {
      const { bearer } = await newAccount();
      const json = `{"emails":[${Array(Math.floor((10 * MB - 16) / 4))
        .fill('"a"')
        .join(',')}]}`;
      expect(json.length).toBeLessThanOrEqual(10 * MB);
      expect(json.length).toBeGreaterThan(10 * MB - 16);
      const res = await stack.call('POST', '/v1/email/jobs', {
        headers: { ...bearer, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
        body: gzipSync(json),
      });
      await expectError(res, 400, 'job_too_large');
    });

    test('a CSV with a quote left open is refused 400 invalid_body naming the line', async () => {
      const { bearer } = await newAccount();
      const message = await expectError(
        await postCsv(bearer, 'email\nann@x.example\n"bob@x.example\ncid@x.example\n'),
        400,
        'invalid_body',
      );
      expect(message).toMatch(/opened on line 3 is never closed/);
    });
  });

  describe('inputs that must work', () => {
    test('CSV and JSON, plain and gzip, direct and through an upload URL, are all accepted', async () => {
      const { bearer } = await newAccount();
      const csv = 'email\nann@x.example\nbob@y.example\n';
      const json = JSON.stringify({ emails: ['ann@x.example', 'bob@y.example'] });
      const uploaded = async (file: Buffer | string) => {
        const ticket = await ticketFor(bearer);
        expect((await postUpload(ticket, file)).status).toBe(204);
        return stack.call('POST', '/v1/email/jobs', { headers: bearer, body: { uploadId: ticket.uploadId } });
      };
      const cases: [string, Response][] = [
        ['CSV', await postCsv(bearer, csv)],
        ['CSV gzip', await postCsv(bearer, gzipSync(csv), { 'Content-Encoding': 'gzip' })],
        [
          'JSON',
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'application/json' },
            body: json,
          }),
        ],
        [
          'JSON gzip',
          await stack.call('POST', '/v1/email/jobs', {
            headers: { ...bearer, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
            body: gzipSync(json),
          }),
        ],
        ['upload CSV', await uploaded(csv)],
        ['upload CSV gzip', await uploaded(gzipSync(csv))],
      ];
      for (const [name, res] of cases) {
        expect([name, res.status]).toEqual([name, 202]);
        expect(await res.json()).toMatchObject({ total: 2, credits: 2 });
      }
    });

    test('stray quotes in unquoted fields are literal characters, as real exports have them', async () => {
      const { bearer } = await newAccount();
      const csv = `name,position,email\nO"Brien,37°36'37.8"N,ann@x.example\nTall 5'10",x,bob@y.example\n`;
      const res = await postCsv(bearer, csv);
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ total: 2 });
    });
  });

  describe('the upload URL enforces its size', () => {
    test('storage refuses a file over maxBytes (EntityTooLarge) and keeps nothing; the uploadId stays unknown', async () => {
      const { accountId, bearer } = await newAccount();
      const ticket = await ticketFor(bearer);
      expect(ticket).toMatchObject({ method: 'POST', maxBytes: 10 * MB });
      const res = await postUpload(ticket, Buffer.alloc(ticket.maxBytes + 1, 'a'));
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('<Code>EntityTooLarge</Code>');
      const stored = await s3.send(
        new ListObjectsV2Command({
          Bucket: BUCKET.localName,
          Prefix: landingKey(accountId, ticket.uploadId),
        }),
      );
      expect(stored.Contents ?? []).toHaveLength(0);
      await expectError(
        await stack.call('POST', '/v1/email/jobs', { headers: bearer, body: { uploadId: ticket.uploadId } }),
        400,
        'invalid_body',
      );
    });

    test('a file of exactly maxBytes is stored', async () => {
      const { bearer } = await newAccount();
      const ticket = await ticketFor(bearer);
      expect((await postUpload(ticket, Buffer.alloc(ticket.maxBytes, 'a'))).status).toBe(204);
    });

    test('the upload is only for its own key: another key in the form is refused', async () => {
      const { accountId, bearer } = await newAccount();
      const ticket = await ticketFor(bearer);
      const other = { ...ticket.fields, key: landingKey(accountId, '00000000-0000-4000-8000-000000000000') };
      const res = await postUpload(ticket, 'email\na@x.example\n', other);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('<Code>AccessDenied</Code>');
    });

    test('an over-size object behind an uploadId is deleted and the job refused 413 body_too_large', async () => {
      const { accountId, bearer } = await newAccount();
      const ticket = await ticketFor(bearer);
      const key = landingKey(accountId, ticket.uploadId);
      // Stored some other way than the presigned POST (S3 would refuse it there).
      await s3.send(
        new PutObjectCommand({ Bucket: BUCKET.localName, Key: key, Body: Buffer.alloc(10 * MB + 1, 'a') }),
      );
      await expectError(
        await stack.call('POST', '/v1/email/jobs', { headers: bearer, body: { uploadId: ticket.uploadId } }),
        413,
        'body_too_large',
      );
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET.localName, Key: key })).then(
        () => 'present',
        (err: { name?: string }) => err.name,
      );
      expect(head).toBe('NotFound');
    });
  });
});
