import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, test } from '@jest/globals';
import { defineHandlerWith } from '../../../functions/lib/http/define-handler.js';
import { ValidationError } from '../../../functions/lib/http/errors.js';
import type { PipelineDeps } from '../../../functions/lib/http/middleware/pipeline-deps.js';
import { type Principal, toAuthorizerContext } from '../../../functions/lib/http/principal.js';
import { SentNotices } from '../../../functions/lib/limits/notice-delivery.js';
import type { UsageNotice } from '../../../functions/lib/limits/notifier.js';
import { minuteWindow } from '../../../functions/lib/limits/windows.js';
import { routeByName } from '../../../functions/routes.js';
import { MemoryUsageCounter } from '../limits/support/memory-counter.js';
import { MemoryNoticeLedger } from '../limits/support/memory-notice-ledger.js';
import {
  apiEvent,
  FakeMetrics,
  fixedClock,
  lambdaContext,
  NOW,
  PRINCIPAL,
  SERVICES,
} from './middleware/support/pipeline.js';

// The whole request pipeline of a route, on fakes: an in-memory counter with the DynamoDB item's
// conditions, a notifier that records, a fixed clock.

const W = minuteWindow(NOW);

function pipeline(counter = new MemoryUsageCounter()) {
  const metrics = new FakeMetrics();
  const notices: UsageNotice[] = [];
  const deps: PipelineDeps = {
    services: SERVICES,
    counter,
    clock: fixedClock,
    notices: {
      ledger: new MemoryNoticeLedger(),
      notifier: async () => ({
        send: async (n) => {
          notices.push(n);
        },
      }),
      accounts: { getAccount: async () => ({ email: 'owner@shop.example' }) },
      sent: new SentNotices(),
    },
    logger: new Logger({ serviceName: 'netintel-test', logLevel: 'SILENT' }),
    metrics,
  };
  return { counter, metrics, notices, define: defineHandlerWith(deps) };
}

const call = (principal: Principal = PRINCIPAL, headers: Record<string, string> = {}) =>
  apiEvent({
    headers,
    requestContext: {
      requestId: 'req-1',
      identity: { sourceIp: '203.0.113.9' },
      authorizer: toAuthorizerContext(principal),
    } as unknown as ReturnType<typeof apiEvent>['requestContext'],
  });

const body = (res: { body: string }) => JSON.parse(res.body);

describe('pipeline', () => {
  describe('the request pipeline of a route, end to end on fakes', () => {
    test('a billed call is admitted, counted in the minute and the month, and emits its usage event', async () => {
      const { counter, metrics, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 2, monthCount: 10 }),
      );
      const handler = define({
        route: routeByName('lookup-ip'),
        input: () => ({ ip: '1.1.1.1' }),
        run: (input, { billed, now }) => ({ json: { ...input, billed, now: now.toISOString() } }),
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(200);
      expect(body(res)).toEqual({
        ip: '1.1.1.1',
        billed: { units: 1, month: '2026-11' },
        now: NOW.toISOString(),
      });
      expect(counter.state).toMatchObject({ minuteCount: 3, monthCount: 11 });
      expect(metrics.events).toEqual([{ accountId: 'acct_1', meter: 'lookup', units: 1 }]);
    });

    test('a call over the per-minute limit is 429 with Retry-After, and the route does not run', async () => {
      const { define } = pipeline(new MemoryUsageCounter({ window: W, minuteCount: 60, monthCount: 10 }));
      let ran = false;
      const handler = define({
        route: routeByName('lookup-ip'),
        input: () => ({}),
        run: () => {
          ran = true;
          return { json: {} };
        },
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(429);
      expect(res.headers).toMatchObject({ 'Retry-After': '40' });
      expect(body(res)).toMatchObject({ error: 'rate_limit_exceeded' });
      expect(ran).toBe(false);
    });

    test('a 5xx after admission is answered 500 and its units are refunded', async () => {
      const { counter, metrics, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 0, monthCount: 10 }),
      );
      const handler = define({
        route: routeByName('lookup-batch'),
        input: () => ({ ips: ['1.1.1.1', '8.8.8.8'] }),
        run: () => {
          throw new Error('data layer missing');
        },
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(500);
      expect(body(res)).toEqual({ error: 'internal_error', message: 'An unexpected error occurred.' });
      expect(counter.state).toMatchObject({ minuteCount: 1, monthCount: 10 });
      expect(metrics.events).toEqual([]);
    });

    test('a validation 400 counts against the minute but not the month', async () => {
      const { counter, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 5, monthCount: 10 }),
      );
      const handler = define({
        route: routeByName('lookup-ip'),
        input: () => {
          throw new ValidationError('invalid_ip', 'The path must hold one IPv4 or IPv6 address.');
        },
        run: () => ({ json: {} }),
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(400);
      expect(body(res)).toMatchObject({ error: 'invalid_ip' });
      expect(counter.state).toMatchObject({ minuteCount: 6, monthCount: 10 });
    });

    test('an error for an allowed browser origin carries CORS headers', async () => {
      const { define } = pipeline();
      const handler = define({
        route: routeByName('geo'),
        input: () => {
          throw new ValidationError('invalid_query', 'bad');
        },
        run: () => ({ json: {} }),
      });
      const browser: Principal = {
        ...PRINCIPAL,
        keyType: 'publishable',
        allowedOrigin: 'https://shop.example',
      };

      const res = await handler(call(browser, { Origin: 'https://shop.example' }), lambdaContext());

      expect(res.statusCode).toBe(400);
      expect(res.headers).toMatchObject({
        'Access-Control-Allow-Origin': 'https://shop.example',
        Vary: 'Origin',
        'Content-Type': 'application/json; charset=utf-8',
      });
    });

    test('a reserved charge is admitted under its hold, and a failure releases it instead of refunding', async () => {
      const { counter, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 0, monthCount: 10 }),
      );
      const reserved: { units: number; month: string }[] = [];
      let released = 0;
      const handler = define({
        route: routeByName('jobs-create'),
        input: () => ({ emails: ['a@x.example', 'b@x.example', 'a@x.example'] }),
        reserve: async (_input, { units, month }) => {
          reserved.push({ units, month });
          return {
            hold: 'job-1',
            state: 'pending-job',
            release: async () => {
              released += 1;
            },
          };
        },
        run: (_input, { reserved: job }) => {
          throw new Error(`queueing ${job} failed`);
        },
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(500);
      expect(reserved).toEqual([{ units: 2, month: '2026-11' }]);
      expect(released).toBe(1);
      // Charged under the hold; giving it back is the release's job (the fake's does not).
      expect(counter.state.monthCount).toBe(12);
    });

    test('a replayed reservation answers at once: counted in the minute, charged nothing, run not run', async () => {
      const { counter, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 0, monthCount: 10 }),
      );
      const handler = define({
        route: routeByName('jobs-create'),
        input: () => ({ emails: ['a@x.example'] }),
        reserve: async () => ({ replay: { status: 202, json: { id: 'job-1' } } }),
        run: () => {
          throw new Error('must not run');
        },
      });

      const res = await handler(call(), lambdaContext());

      expect(res.statusCode).toBe(202);
      expect(body(res)).toEqual({ id: 'job-1' });
      expect(counter.state).toMatchObject({ minuteCount: 1, monthCount: 10 });
    });

    test('the billed call that reaches 75% of the cap sends the notice', async () => {
      const { notices, define } = pipeline(
        new MemoryUsageCounter({ window: W, minuteCount: 0, monthCount: 74 }),
      );
      const handler = define({
        route: routeByName('lookup-ip'),
        input: () => ({}),
        run: () => ({ json: {} }),
      });

      await handler(call(), lambdaContext());

      expect(notices).toEqual([expect.objectContaining({ percent: 75, email: 'owner@shop.example' })]);
    });
  });
});
