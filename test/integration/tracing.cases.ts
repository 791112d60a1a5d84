import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';

// X-Ray traces as Lambda sends them (issue 15): test/support/traced-lambda.ts runs two invocations of
// a route's pipeline in a child process with Lambda's tracing environment, and this test is the X-Ray
// daemon, reading the subsegments the SDK streams to it over UDP.

interface Subsegment {
  id: string;
  name: string;
  parent_id?: string;
  namespace?: string;
  annotations?: Record<string, string | number | boolean>;
  metadata?: unknown;
  error?: boolean;
  aws?: { operation?: string };
}

const TRACE_ID = '1-5759e988-bd862e3fe1be46a994272793';
const FACADE_ID = '53995c3f42cd8ad8';

let daemon: dgram.Socket;
let dns: DnsServer;
const packets: string[] = [];
let printed = '';
let subsegments: Subsegment[] = [];

describe('tracing', () => {
  beforeAll(async () => {
    daemon = dgram.createSocket('udp4');
    daemon.on('message', (message) => packets.push(message.toString('utf8')));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    dns = await startDnsServer({
      answer: (name) => (name === 'example.com' ? [mx('mx.example.com')] : 'nxdomain'),
    });

    const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'support', 'traced-lambda.ts')], {
      cwd: PROJECT_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        // Lambda's environment with active tracing.
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        LAMBDA_TASK_ROOT: '/var/task',
        _HANDLER: 'index.handler',
        _X_AMZN_TRACE_ID: `Root=${TRACE_ID};Parent=${FACADE_ID};Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as { port: number }).port}`,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        // The stack's (infra/constructs/netintel-function.ts, asserted by test/infra/stack.cases.ts).
        POWERTOOLS_SERVICE_NAME: 'netintel',
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        POWERTOOLS_TRACER_CAPTURE_ERROR: 'false',
        POWERTOOLS_METRICS_DISABLED: 'true',
        // The route's work: DNS from the test's name server, S3 at a port nobody listens on.
        DNS_SERVERS: dns.address,
        AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9',
        AWS_MAX_ATTEMPTS: '1',
        // The layer the global setup built.
        NETINTEL_DATA_PATH: process.env.NETINTEL_DATA_PATH ?? join(PROJECT_ROOT, 'layers', 'data'),
      },
    });
    child.stdout.on('data', (chunk) => {
      printed += chunk;
    });
    child.stderr.on('data', (chunk) => {
      printed += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`traced-lambda.ts exited with ${code}: ${printed}`);
    // The last datagrams may still be on their way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Each datagram: the header line `{"format":"json","version":1}`, then one (sub)segment.
    subsegments = packets.map((packet) => JSON.parse(packet.slice(packet.indexOf('\n') + 1)) as Subsegment);
  }, 180_000);

  afterAll(async () => {
    daemon?.close();
    await dns?.close();
  });

  const handlers = () => subsegments.filter((s) => s.name === '## index.handler');
  const childrenOf = (parent: Subsegment) => subsegments.filter((s) => s.parent_id === parent.id);

  describe('a traced invocation (issue 15)', () => {
    test("each invocation's handler subsegment hangs under Lambda's segment, annotated with route and account", () => {
      const [served, refused] = handlers();

      expect(handlers()).toHaveLength(2);
      for (const handler of [served, refused]) {
        expect(handler?.parent_id).toBe(FACADE_ID);
        expect(handler?.annotations).toMatchObject({
          Service: 'netintel',
          route: 'email-batch',
          accountId: 'acct_1',
        });
      }
      expect(served?.annotations).not.toHaveProperty('errorCode');
      expect([served?.annotations?.ColdStart, refused?.annotations?.ColdStart]).toEqual([true, false]);
    });

    test('a refused call carries its error code and the error flag, not the error', () => {
      const refused = handlers()[1];

      expect(refused?.annotations?.errorCode).toBe('rate_limit_exceeded');
      expect(refused?.error).toBe(true);
      expect(JSON.stringify(refused)).not.toContain('Per-minute rate limit');
    });

    test('the DNS queries of the check are subsegments of the handler, with name, type and outcome', () => {
      const dnsQueries = childrenOf(handlers()[0]!).filter((s) => s.name.startsWith('DNS '));

      expect(dnsQueries.map((s) => s.annotations)).toContainEqual({
        dns_type: 'MX',
        dns_name: 'example.com',
        dns_outcome: 'records',
      });
    });

    test('the S3 call is an AWS subsegment of the handler', () => {
      const s3 = childrenOf(handlers()[0]!).find((s) => s.name === 'S3');

      expect(s3).toMatchObject({ namespace: 'aws', aws: { operation: 'HeadBucket' } });
    });

    test('neither the response nor any email address reaches the trace', () => {
      for (const handler of handlers()) expect(handler.metadata).toBeUndefined();
      expect(packets.join('\n')).not.toContain('ada@example.com');
    });

    test('the function prints no warning about segments or context', () => {
      expect(printed).toBe('');
    });
  });
});
