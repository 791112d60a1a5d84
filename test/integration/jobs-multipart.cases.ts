import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { FILENAME_MESSAGES } from '../../functions/lib/jobs/filename.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { serviceNow, startTestStack, type TestStack } from '../support/local-stack.js';

// POST /v1/email/jobs with `curl -F file=@list.csv`: a multipart/form-data body with one file part.
let stack: TestStack;
let dns: DnsServer;
let bearer: Record<string, string>;

describe('jobs-multipart', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
    const account = await accountStore(stack.services).createAccount('pro', {});
    bearer = {
      Authorization: `Bearer ${(await accountStore(stack.services).createKey(account.accountId, 'secret', [])).key}`,
    };
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  const BOUNDARY = '------------------------7f3b2c1d0e9a8b76';

  /** The body `curl -F file=@<filename>` sends (curl labels a .csv file application/octet-stream). */
  function curlForm(filename: string, content: string | Buffer, type = 'application/octet-stream'): Buffer {
    return Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      Buffer.from(content),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
  }

  /** A form whose file part names itself with RFC 5987's filename* (UTF-8, percent-encoded). */
  function encodedNameForm(encodedName: string, content: string): Buffer {
    return Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''${encodedName}\r\n` +
        `Content-Type: text/csv\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
    );
  }

  function postForm(body: Buffer | FormData, query = ''): Promise<Response> {
    return fetch(`${stack.url}/v1/email/jobs${query}`, {
      method: 'POST',
      headers: {
        ...bearer,
        ...(body instanceof FormData ? {} : { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }),
      },
      body,
    });
  }

  interface JobBody {
    id: string;
    status: string;
    filename: string | null;
    total: number;
    credits: number;
  }

  async function created(res: Response): Promise<JobBody> {
    expect(res.status).toBe(202);
    return (await res.json()) as JobBody;
  }

  async function refused(res: Response, status: number, error: string): Promise<string> {
    const body = (await res.json()) as { error: string; message: string };
    expect({ status: res.status, error: body.error }).toEqual({ status, error });
    return body.message;
  }

  describe('multipart/form-data list uploads', () => {
    test('`curl -F file=@list.csv` creates the job from the CSV, named after the file', async () => {
      const job = await created(
        await postForm(
          curlForm(
            'list.csv',
            'Email,Name\r\nann@shop.example,Ann\r\nbob@shop.example,Bob\r\nann@shop.example,A\r\n',
          ),
        ),
      );
      expect(job).toMatchObject({ status: 'queued', filename: 'list.csv', total: 3, credits: 2 });
    });

    test('a filename with a control character is 400 invalid_body, nothing made or charged: ?filename=, the file part, a JSON body', async () => {
      const account = await accountStore(stack.services).createAccount('pro', {});
      const key = (await accountStore(stack.services).createKey(account.accountId, 'secret', [])).key;
      const auth = { Authorization: `Bearer ${key}` };
      const csv = 'email\na@x.example\n';
      const post = (query: string, body: string | Buffer, type: string) =>
        fetch(`${stack.url}/v1/email/jobs${query}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': type },
          body,
        });
      const form = `multipart/form-data; boundary=${BOUNDARY}`;
      const attempts: Promise<Response>[] = [
        post('?filename=%1B%5B2J%1B%5B31mEVIL%1B%5B0m.csv', csv, 'text/csv'),
        post('?filename=a%0D%0Ab.csv', csv, 'text/csv'),
        post('?filename=a%00.csv', csv, 'text/csv'),
        post('?filename=a%C2%9B2J.csv', csv, 'text/csv'), // C1 CSI
        post('?filename=%1B%5B2J.csv', curlForm('list.csv', csv), form),
        // A raw ESC or DEL in a part header is refused as a malformed header; RFC 5987's filename*
        // carries them encoded.
        post('', encodedNameForm('%1B%5B2J%1B%5B31mEVIL.csv', csv), form),
        post('', encodedNameForm('del%7F.csv', csv), form),
        post('', encodedNameForm('a%0D%0Ab.csv', csv), form),
        post('', JSON.stringify({ emails: ['a@x.example'], filename: 'a\u001b[0m.csv' }), 'application/json'),
      ];
      for (const res of attempts) {
        expect(await refused(await res, 400, 'invalid_body')).toBe(FILENAME_MESSAGES.control);
      }
      const listed = (await (await fetch(`${stack.url}/v1/email/jobs`, { headers: auth })).json()) as {
        jobs: unknown[];
      };
      expect(listed.jobs).toEqual([]);
      expect(
        (await usageCounter(stack.services).read(account.accountId, monthKey(serviceNow()))).monthCount,
      ).toBe(0);
      // A name of printable characters, non-ASCII included, is kept.
      expect(
        (await created(await post('?filename=r%C3%A9sum%C3%A9%20(1).csv', csv, 'text/csv'))).filename,
      ).toBe('résumé (1).csv');
    });

    test('?filename= names the job instead of the file part', async () => {
      const job = await created(
        await postForm(curlForm('export-2024.csv', 'email\na@x.example\n'), '?filename=march.csv'),
      );
      expect(job.filename).toBe('march.csv');
    });

    test('a gzip file part, a JSON file part and a form built by fetch are read too', async () => {
      const gz = await created(
        await postForm(curlForm('list.csv.gz', gzipSync('email\na@x.example\nb@x.example\n'))),
      );
      expect(gz.total).toBe(2);
      const json = await created(
        await postForm(
          curlForm('list.json', JSON.stringify({ emails: ['a@x.example'] }), 'application/json'),
        ),
      );
      expect(json).toMatchObject({ filename: 'list.json', total: 1 });
      const form = new FormData();
      form.append('file', new Blob(['email\nc@x.example\n'], { type: 'text/csv' }), 'browser.csv');
      expect(await created(await postForm(form))).toMatchObject({ filename: 'browser.csv', total: 1 });
    });

    test('a form with two files or none, or a file the CSV rules refuse, is a 4xx with its reason', async () => {
      const two = new FormData();
      two.append('file', new Blob(['email\na@x.example\n']), 'a.csv');
      two.append('file', new Blob(['email\nb@x.example\n']), 'b.csv');
      expect(await refused(await postForm(two), 400, 'invalid_body')).toContain('one file part');

      const none = new FormData();
      none.append('emails', 'a@x.example');
      expect(await refused(await postForm(none), 400, 'invalid_body')).toContain('curl -F file=@list.csv');

      await refused(await postForm(curlForm('empty.csv', 'email\n\n')), 400, 'empty_job');
      const many = `email\n${Array.from({ length: 100_001 }, (_, i) => `u${i}@x.example`).join('\n')}`;
      await refused(await postForm(curlForm('many.csv', many)), 400, 'job_too_large');
    });

    test('another media type is 415 with the curl lines that work', async () => {
      const res = await fetch(`${stack.url}/v1/email/jobs`, {
        method: 'POST',
        headers: { ...bearer, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'email%0Aa%40x.example',
      });
      const message = await refused(res, 415, 'unsupported_media_type');
      expect(message).toContain('curl -F file=@list.csv');
      expect(message).toContain("curl -H 'Content-Type: text/csv' --data-binary @list.csv");
    });
  });
});
