import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { encodeCursor } from '../../functions/lib/jobs/list-cursor.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { clock, freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';

// GET /v1/email/jobs: the account's jobs, newest first, paginated; never another account's.

let stack: TestStack;
let dns: DnsServer;

interface JobBody {
  id: string;
  status: string;
  createdAt: string;
  credits: number;
}
interface Page {
  jobs: JobBody[];
  nextCursor: string | null;
}

async function account(perMinute?: number) {
  const created = await accountStore(stack.services).createAccount('pro', perMinute ? { perMinute } : {});
  const key = (await accountStore(stack.services).createKey(created.accountId, 'secret', [])).key;
  return { accountId: created.accountId, auth: { Authorization: `Bearer ${key}` } };
}

async function createJobs(auth: Record<string, string>, n: number): Promise<JobBody[]> {
  const jobs: JobBody[] = [];
  for (let i = 0; i < n; i++) {
    // One second apart on the service clock: distinct creation times.
    clock.advance(1000);
    const res = await stack.call('POST', '/v1/email/jobs', {
      headers: auth,
      body: { emails: [`u${i}@list.example`], filename: `list-${i}.csv` },
    });
    expect(res.status).toBe(202);
    jobs.push((await res.json()) as JobBody);
  }
  return jobs;
}

const list = (auth: Record<string, string>, query = '') =>
  stack.call('GET', `/v1/email/jobs${query}`, { headers: auth });

describe('jobs-list', () => {
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

  describe('GET /v1/email/jobs', () => {
    test("lists the account's jobs newest first, each as GET /v1/email/jobs/{id} shows it; not billed", async () => {
      const { accountId, auth } = await account();
      await stack.pollers.pause();
      try {
        const created = await createJobs(auth, 3);
        const month = clock.now().toISOString().slice(0, 7);
        const before = (await usageCounter(stack.services).read(accountId, month)).monthCount;
        const res = await list(auth);
        expect(res.status).toBe(200);
        const page = (await res.json()) as Page;
        expect(page.jobs.map((j) => j.id)).toEqual(created.map((j) => j.id).reverse());
        expect(page.nextCursor).toBeNull();
        for (const job of page.jobs) {
          const one = await stack.call('GET', `/v1/email/jobs/${job.id}`, { headers: auth });
          expect(job).toEqual(await one.json());
        }
        expect((await usageCounter(stack.services).read(accountId, month)).monthCount).toBe(before);
      } finally {
        stack.pollers.resume();
      }
    });

    test('pages through every job with limit and nextCursor; the last page has nextCursor null', async () => {
      const { auth } = await account();
      const created = await createJobs(auth, 5);
      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await (await list(auth, query)).json()) as Page;
        sizes.push(page.jobs.length);
        seen.push(...page.jobs.map((j) => j.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(sizes).toEqual([2, 2, 1]);
      expect(seen).toEqual(created.map((j) => j.id).reverse());
      const all = (await (await list(auth, '?limit=100')).json()) as Page;
      expect(all.jobs).toHaveLength(5);
    });

    test('a limit outside 1 to 100 or not a whole number, and a cursor it did not make, are 400 invalid_query', async () => {
      const { auth } = await account();
      const junk = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const queries = [
        '?limit=0',
        '?limit=101',
        '?limit=abc',
        '?limit=1.5',
        '?limit=-1',
        '?limit=',
        '?limit=%205',
        '?limit=1e1',
        '?cursor=',
        '?cursor=not%20base64!',
        `?cursor=${'A'.repeat(300)}`,
        `?cursor=${Buffer.from('not json').toString('base64url')}`,
        `?cursor=${junk(null)}`,
        `?cursor=${junk({ c: 1, i: 2 })}`,
        `?cursor=${junk({ c: 'yesterday', i: '00000000-0000-4000-8000-000000000000' })}`,
        `?cursor=${junk({ c: '2026-01-01T00:00:00.000Z', i: 'JOB#x' })}`,
      ];
      for (const query of queries) {
        const res = await list(auth, query);
        expect([query, res.status]).toEqual([query, 400]);
        expect(await res.json()).toEqual({ error: 'invalid_query', message: expect.any(String) });
      }
    });

    test("never lists another account's jobs, also with a cursor made from one of them", async () => {
      const mine = await account();
      const theirs = await account();
      const own = await createJobs(mine.auth, 2);
      const other = await createJobs(theirs.auth, 2);
      const page = (await (await list(mine.auth)).json()) as Page;
      expect(page.jobs.map((j) => j.id).sort()).toEqual(own.map((j) => j.id).sort());
      // A cursor positioned at the other account's newest job: only the caller's jobs come back.
      const cursor = encodeCursor({ createdAt: other[1]!.createdAt, id: other[1]!.id });
      const res = await list(mine.auth, `?cursor=${cursor}`);
      expect(res.status).toBe(200);
      const crafted = (await res.json()) as Page;
      for (const job of crafted.jobs) expect(own.map((j) => j.id)).toContain(job.id);
      const empty = (await (await list((await account()).auth)).json()) as Page;
      expect(empty).toEqual({ jobs: [], nextCursor: null });
    });

    test('counts against the per-minute limit like polling', async () => {
      const { auth } = await account(2);
      freshMinute();
      expect((await list(auth)).status).toBe(200);
      expect((await list(auth)).status).toBe(200);
      const res = await list(auth);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: string }).error).toBe('rate_limit_exceeded');
    });
  });
});
