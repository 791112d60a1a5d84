import { gzipSync } from 'node:zlib';
import { Logger } from '@aws-lambda-powertools/logger';
import { buildOpenApi } from '../functions/api-reference/openapi.js';
import { CONTRACTS } from '../functions/contracts.js';
import { defineHandlerWith } from '../functions/lib/http/define-handler.js';
import { ValidationError } from '../functions/lib/http/errors.js';
import type { PipelineDeps } from '../functions/lib/http/middleware/pipeline-deps.js';
import { type Principal, toAuthorizerContext } from '../functions/lib/http/principal.js';
import { SentNotices } from '../functions/lib/limits/notice-delivery.js';
import { ROUTES, routeByName } from '../functions/routes.js';
import { testServices } from '../test/support/services.js';
import {
  apiEvent,
  FakeMetrics,
  lambdaContext,
  PRINCIPAL,
} from '../test/unit/http/middleware/support/pipeline.js';
import { MemoryUsageCounter } from '../test/unit/limits/support/memory-counter.js';
import { MemoryNoticeLedger } from '../test/unit/limits/support/memory-notice-ledger.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// The request pipeline (functions/lib/http/define-handler.ts): what the chain of named middlewares
// costs a request in process, on in-memory fakes, so the figure is the chain itself and not
// DynamoDB. And the API reference document the docs page and the clients read.

export const about =
  'The whole middleware chain of a route (principal, validation, billing, admission, notices, usage events, ' +
  'errors, CORS, response headers) around a route that does no work, on an in-memory counter: µs per request, ' +
  'median of 15 rounds of 2,000 requests. The OpenAPI document is built from the route table and contracts ' +
  'as `GET /v1/openapi.json` serves it.';

const GROUP = 'Request pipeline (in process, fakes)';
const ROUNDS = 15;
const PER_ROUND = 2_000;

const principal: Principal = { ...PRINCIPAL, perMinute: 1e9, monthlyCap: 1e12 };
const event = (headers: Record<string, string> = {}) =>
  apiEvent({
    headers,
    requestContext: {
      requestId: 'req-1',
      identity: { sourceIp: '203.0.113.9' },
      authorizer: toAuthorizerContext(principal),
    } as unknown as ReturnType<typeof apiEvent>['requestContext'],
  });

function define() {
  const deps: PipelineDeps = {
    // The routes below use nothing of it: an instance of default settings, never built on.
    services: testServices(),
    counter: new MemoryUsageCounter(),
    clock: { now: () => new Date() },
    notices: {
      ledger: new MemoryNoticeLedger(),
      notifier: async () => ({ send: async () => undefined }),
      accounts: { getAccount: async () => ({ email: 'owner@shop.example' }) },
      sent: new SentNotices(),
    },
    logger: new Logger({ serviceName: 'netintel-bench', logLevel: 'SILENT' }),
    metrics: new FakeMetrics(),
  };
  return defineHandlerWith(deps);
}

async function perRequest(handler: (e: ReturnType<typeof event>) => Promise<unknown>): Promise<number[]> {
  const e = event();
  for (let i = 0; i < 500; i++) await handler(e); // warm-up
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    for (let i = 0; i < PER_ROUND; i++) await handler(e);
    rounds.push(((performance.now() - t) * 1000) / PER_ROUND);
  }
  return rounds;
}

export async function run(): Promise<BenchResult[]> {
  const make = define();
  const ctx = lambdaContext();
  const billed = make({
    route: routeByName('lookup-ip'),
    input: () => ({ ip: '1.1.1.1' }),
    run: () => ({ json: { ok: true } }),
  });
  const refused = make({
    route: routeByName('lookup-ip'),
    input: () => {
      throw new ValidationError('invalid_query', 'include takes the value hostname.');
    },
    run: () => ({ json: {} }),
  });
  const billedUs = await perRequest((e) => billed(e, ctx));
  const refusedUs = await perRequest((e) => refused(e, ctx));

  const buildMs: number[] = [];
  let doc = '';
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    doc = JSON.stringify(buildOpenApi(ROUTES, CONTRACTS));
    buildMs.push(performance.now() - t);
  }
  const row = (figure: string, xs: number[], unit: string): BenchResult => ({
    group: GROUP,
    figure,
    median: round(median(xs), 2),
    spread: minMax(xs),
    unit,
    samples: xs.length,
  });
  return [
    row('billed call through the whole chain', billedUs, 'µs/request'),
    row('call refused by its input check (400)', refusedUs, 'µs/request'),
    row('OpenAPI document: build', buildMs, 'ms'),
    {
      group: GROUP,
      figure: 'OpenAPI document: size (gzip)',
      median: round(doc.length / 1024, 1),
      spread: `${round(gzipSync(doc).length / 1024, 1)} KB gzip`,
      unit: 'KB',
      samples: 1,
    },
  ];
}
