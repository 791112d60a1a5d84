import { Logger } from '@aws-lambda-powertools/logger';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../functions/lib/aws/s3-client.js';
import { traceAnnotations } from '../../functions/lib/aws/tracing.js';
import { defineHandlerWith } from '../../functions/lib/http/define-handler.js';
import { RateLimitError } from '../../functions/lib/http/errors.js';
import { toAuthorizerContext } from '../../functions/lib/http/principal.js';
import { SentNotices } from '../../functions/lib/limits/notice-delivery.js';
import { environmentConfig } from '../../functions/lib/runtime/config.js';
import { emailChecker } from '../../functions/lib/runtime/email.js';
import { createServices } from '../../functions/lib/runtime/services.js';
import { routeByName } from '../../functions/routes.js';
import {
  apiEvent,
  FakeMetrics,
  fixedClock,
  lambdaContext,
  PRINCIPAL,
} from '../unit/http/middleware/support/pipeline.js';
import { MemoryUsageCounter } from '../unit/limits/support/memory-counter.js';
import { MemoryNoticeLedger } from '../unit/limits/support/memory-notice-ledger.js';

// Two invocations of a route's pipeline as Lambda runs them with active tracing: run in a child
// process by test/integration/tracing.cases.ts, which sets Lambda's environment and plays the X-Ray
// daemon. The route's own work goes through the real wiring: the email checker's DNS resolver
// (runtime/email.ts) and the S3 client (aws/s3-client.ts). Prints nothing.

const define = defineHandlerWith({
  // The real wiring, on this process's environment (Lambda's, as the parent test sets it).
  services: createServices(environmentConfig()),
  counter: new MemoryUsageCounter(),
  clock: fixedClock,
  notices: {
    ledger: new MemoryNoticeLedger(),
    notifier: async () => ({ send: async () => undefined }),
    accounts: { getAccount: async () => ({ email: 'owner@shop.example' }) },
    sent: new SentNotices(),
  },
  logger: new Logger({ serviceName: 'netintel', logLevel: 'SILENT' }),
  metrics: new FakeMetrics(),
  annotations: traceAnnotations,
});

const event = apiEvent({
  requestContext: {
    requestId: 'req-1',
    identity: { sourceIp: '203.0.113.9' },
    authorizer: toAuthorizerContext(PRINCIPAL),
  } as unknown as ReturnType<typeof apiEvent>['requestContext'],
});

/** Checks the addresses (DNS) and looks at a bucket (S3); answers with the addresses. */
const served = define({
  route: routeByName('email-batch'),
  input: () => ({ emails: ['ada@example.com'] }),
  run: async ({ emails }, { services }) => {
    const results = await (await emailChecker(services)).checkMany(emails);
    await s3Client(services)
      .send(new HeadBucketCommand({ Bucket: 'netintel-trace-test' }))
      .catch(() => undefined);
    return { json: { results } };
  },
});

const refused = define({
  route: routeByName('email-batch'),
  input: () => {
    throw new RateLimitError(3);
  },
  run: async () => ({ json: {} }),
});

await served(event, lambdaContext());
await refused(event, lambdaContext());
