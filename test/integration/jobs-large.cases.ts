import { gzipSync } from 'node:zlib';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Lists near the payload limits: a synchronous invocation carries at most 6 MB, the contract
// allows 10 MB of CSV and results far larger than 6 MB.
let stack: TestStack;
let dns: DnsServer;

describe('jobs-large', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  /** A CSV with `rows` addresses over 50 domains and a wide note column. */
  function bigCsv(rows: number, note = 60): string {
    const lines = ['email,note'];
    for (let i = 0; i < rows; i++) lines.push(`person.${i}@company${i % 50}.example,${'x'.repeat(note)}`);
    return `${lines.join('\n')}\n`;
  }

  // Three 60-letter labels: addresses near the 254-character limit make results over 4 MB from
  // 12,000 rows (70,000 short ones took 20 s to check on 2 cores).
  const LONG_LABELS = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}`;

  /** About 6 MB of CSV in `rows` long addresses over 50 domains; the note column takes up the rest. */
  function wideCsv(rows: number): string {
    const lines = ['email,note'];
    for (let i = 0; i < rows; i++)
      lines.push(`person.${i}@${LONG_LABELS}.company${i % 50}.example,${'x'.repeat(320)}`);
    return `${lines.join('\n')}\n`;
  }

  interface UploadTicket {
    uploadId: string;
    uploadUrl: string;
    method: string;
    fields: Record<string, string>;
    maxBytes: number;
  }

  /** Posts a file to an upload ticket as the browser-form upload it presigns (fields, then the file). */
  function postUpload(ticket: UploadTicket, body: string | Buffer): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    form.append('file', new Blob([body]), 'list.csv');
    return fetch(ticket.uploadUrl, { method: 'POST', body: form });
  }

  async function waitCompleted(id: string, headers: Record<string, string>) {
    for (let i = 0; i < 600; i++) {
      const job = (await (await stack.call('GET', `/v1/email/jobs/${id}`, { headers })).json()) as {
        status: string;
        processed: number;
      };
      if (job.status === 'completed') return job;
      if (job.status === 'failed') throw new Error('job failed');
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('job did not complete');
  }

  describe('payload limits', () => {
    test('a CSV body too big for one invocation is 413 body_too_large, locally as in AWS', async () => {
      const csv = bigCsv(70_000); // about 6.3 MB
      const res = await stack.call('POST', '/v1/email/jobs', {
        headers: { ...stack.secret(), 'Content-Type': 'text/csv' },
        body: csv,
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: string }).error).toBe('body_too_large');
    });

    test('a 6 MB CSV goes through an upload URL; results over 4 MB come as a redirect to a text/csv file', async () => {
      const csv = wideCsv(12_000);
      expect(csv.length).toBeGreaterThan(6 * 1024 * 1024);
      const ticketRes = await stack.call('POST', '/v1/email/jobs/uploads', { headers: stack.secret() });
      expect(ticketRes.status).toBe(201);
      const ticket = (await ticketRes.json()) as UploadTicket;
      expect(ticket).toMatchObject({ method: 'POST', maxBytes: 10 * 1024 * 1024 });
      const posted = await postUpload(ticket, csv);
      expect({ status: posted.status, body: await posted.text() }).toEqual({ status: 204, body: '' });

      const created = await stack.call('POST', '/v1/email/jobs', {
        headers: stack.secret(),
        body: { uploadId: ticket.uploadId, filename: 'big.csv' },
      });
      expect(created.status).toBe(202);
      const job = (await created.json()) as { id: string; total: number; credits: number; filename: string };
      expect(job).toMatchObject({ total: 12_000, credits: 12_000, filename: 'big.csv' });
      await waitCompleted(job.id, stack.secret());

      const manual = await stack.call('GET', `/v1/email/jobs/${job.id}/results`, { headers: stack.secret() });
      // fetch follows redirects by default; look at the first hop explicitly.
      const first = await fetch(`${stack.url}/v1/email/jobs/${job.id}/results`, {
        headers: stack.secret(),
        redirect: 'manual',
      });
      expect(first.status).toBe(302);
      expect(first.headers.get('location')).toMatch(/^http/);
      expect(manual.status).toBe(200);
      expect(manual.headers.get('content-type')).toContain('text/csv');
      const results = await manual.text();
      expect(results.length).toBeGreaterThan(4 * 1024 * 1024);
      const lines = results.trim().split('\r\n');
      expect(lines).toHaveLength(12_001);
      const first0 = `person.0@${LONG_LABELS}.company0.example`;
      expect(lines[1]?.startsWith(`${first0},${first0},accept,`)).toBe(true);
      expect(lines[12_000]?.startsWith(`person.11999@${LONG_LABELS}.company49.example,`)).toBe(true);
    }, 300_000);

    test('a gzip CSV at an upload URL is read decompressed; a broken gzip is 400 invalid_body', async () => {
      const upload = async (body: Buffer) => {
        const ticket = (await (
          await stack.call('POST', '/v1/email/jobs/uploads', { headers: stack.secret() })
        ).json()) as UploadTicket;
        await postUpload(ticket, body);
        return stack.call('POST', '/v1/email/jobs', {
          headers: stack.secret(),
          body: { uploadId: ticket.uploadId },
        });
      };
      const gz = gzipSync('email\na@b.example\nc@d.example\n');
      const ok = await upload(gz);
      expect(ok.status).toBe(202);
      expect(await ok.json()).toMatchObject({ total: 2 });
      const broken = await upload(gz.subarray(0, gz.length - 6));
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { error: string }).error).toBe('invalid_body');
    });

    test('an uploadId of another account, or one never uploaded, is 400 invalid_body', async () => {
      const ticket = (await (
        await stack.call('POST', '/v1/email/jobs/uploads', { headers: stack.secret() })
      ).json()) as UploadTicket;
      await postUpload(ticket, 'email\na@b.example\n');
      const other = await accountStore(stack.services).createAccount('pro', {});
      const otherKey = {
        Authorization: `Bearer ${(await accountStore(stack.services).createKey(other.accountId, 'secret', [])).key}`,
      };
      for (const headers of [otherKey]) {
        const res = await stack.call('POST', '/v1/email/jobs', {
          headers,
          body: { uploadId: ticket.uploadId },
        });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe('invalid_body');
      }
      const never = await stack.call('POST', '/v1/email/jobs', {
        headers: stack.secret(),
        body: { uploadId: '00000000-0000-4000-8000-000000000000' },
      });
      expect(never.status).toBe(400);
    });
  });

  describe('storage failures on the upload path', () => {
    test('an upload that cannot be read is 503 job_storage_unavailable, not a missing upload, and nothing is charged', async () => {
      const ticket = (await (
        await stack.call('POST', '/v1/email/jobs/uploads', { headers: stack.secret() })
      ).json()) as UploadTicket;
      await postUpload(ticket, 'email\na@b.example\n');
      const s3 = new S3Client({
        endpoint: stack.endpoints.s3,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: LOCAL_CREDENTIALS,
      });
      const month = monthKey(new Date());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).monthCount;
      for (;;) {
        const objects = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET.localName }));
        if (!objects.Contents?.length) break;
        for (const o of objects.Contents)
          await s3.send(new DeleteObjectCommand({ Bucket: BUCKET.localName, Key: o.Key! }));
      }
      await s3.send(new DeleteBucketCommand({ Bucket: BUCKET.localName }));
      try {
        const res = await stack.call('POST', '/v1/email/jobs', {
          headers: stack.secret(),
          body: { uploadId: ticket.uploadId },
        });
        expect(res.status).toBe(503);
        expect(((await res.json()) as { error: string }).error).toBe('job_storage_unavailable');
        expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).monthCount).toBe(before);
      } finally {
        await s3.send(new CreateBucketCommand({ Bucket: BUCKET.localName }));
      }
    });
  });
});
