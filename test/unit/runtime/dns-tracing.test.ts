import { describe, expect, test } from '@jest/globals';
import type { DomainResolver } from '../../../functions/lib/custom-hostnames/ports.js';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createDnsResolver } from '../../../functions/lib/dns/resolver.js';
import {
  type QuerySubsegment,
  type QueryTracer,
  tracedDomainResolver,
  tracedMxResolver,
  tracedReverseLookup,
} from '../../../functions/lib/runtime/dns-tracing.js';

// DNS queries as X-Ray subsegments (issue 15), through the decorators of runtime/dns-tracing.ts, on
// a fake tracer that records what a Powertools Tracer's segments would be told.

class FakeSubsegment implements QuerySubsegment {
  readonly annotations: Record<string, string | number | boolean> = {};
  errorFlag = false;
  closed = false;

  constructor(readonly name: string) {}

  addAnnotation(key: string, value: string | number | boolean): void {
    if (this.closed) throw new Error(`annotation ${key} after ${this.name} closed`);
    this.annotations[key] = value;
  }

  addErrorFlag(): void {
    this.errorFlag = true;
  }

  close(): void {
    if (this.closed) throw new Error(`${this.name} closed twice`);
    this.closed = true;
  }
}

class FakeTracer implements QueryTracer {
  readonly subsegments: FakeSubsegment[] = [];
  /** No current segment: outside an invocation. */
  active = true;

  getSegment() {
    if (!this.active) return undefined;
    return {
      addNewSubsegment: (name: string) => {
        const subsegment = new FakeSubsegment(name);
        this.subsegments.push(subsegment);
        return subsegment;
      },
    };
  }
}

/** A resolver with fixed answers (a DNS zone as data), answering after `delayMs`. */
function zone(delayMs = 0): MxResolver & { close(): void; closed(): boolean } {
  const later = <T>(answer: DnsLookup<T>) =>
    new Promise<DnsLookup<T>>((resolve) => setTimeout(() => resolve(answer), delayMs));
  const mx: Record<string, DnsLookup<MxRecord>> = {
    'example.com': { kind: 'records', records: [{ exchange: 'mx.example.com', priority: 10 }] },
    'gone.example': { kind: 'nxdomain' },
    'broken.example': { kind: 'failure', code: 'ESERVFAIL' },
  };
  // close() closes over its state, as the node:dns adapters' does (dns/resolver.ts).
  let closed = false;
  return {
    closed: () => closed,
    resolveMx: (domain) => later(mx[domain] ?? { kind: 'nodata' }),
    resolveA: () => later<string>({ kind: 'records', records: ['192.0.2.1'] }),
    resolveAaaa: () => later<string>({ kind: 'nodata' }),
    close: () => {
      closed = true;
    },
  };
}

describe('each DNS query is a subsegment with its name, type and outcome', () => {
  test('an MX query opens a subsegment, annotates it and closes it once answered', async () => {
    const tracer = new FakeTracer();
    const resolver = tracedMxResolver(zone(), tracer);

    const answer = await resolver.resolveMx('example.com');

    expect(answer.kind).toBe('records');
    expect(tracer.subsegments).toHaveLength(1);
    const [subsegment] = tracer.subsegments;
    expect(subsegment).toMatchObject({
      name: 'DNS MX',
      closed: true,
      errorFlag: false,
      annotations: { dns_type: 'MX', dns_name: 'example.com', dns_outcome: 'records' },
    });
  });

  test('NXDOMAIN and NODATA are answers, not errors', async () => {
    const tracer = new FakeTracer();
    const resolver = tracedMxResolver(zone(), tracer);

    await resolver.resolveMx('gone.example');
    await resolver.resolveAaaa('example.com');

    expect(tracer.subsegments.map((s) => [s.name, s.annotations.dns_outcome, s.errorFlag])).toEqual([
      ['DNS MX', 'nxdomain', false],
      ['DNS AAAA', 'nodata', false],
    ]);
  });

  test('a failure (SERVFAIL, timeout) is flagged as an error with its code', async () => {
    const tracer = new FakeTracer();

    await tracedMxResolver(zone(), tracer).resolveMx('broken.example');

    expect(tracer.subsegments[0]).toMatchObject({
      closed: true,
      errorFlag: true,
      annotations: { dns_outcome: 'failure', dns_error: 'ESERVFAIL' },
    });
  });

  test('concurrent queries get one subsegment each, all closed', async () => {
    const tracer = new FakeTracer();
    const resolver = tracedMxResolver(zone(5), tracer);

    await Promise.all([
      resolver.resolveMx('example.com'),
      resolver.resolveA('mx.example.com'),
      resolver.resolveAaaa('mx.example.com'),
    ]);

    expect(tracer.subsegments.map((s) => [s.name, s.annotations.dns_name, s.closed])).toEqual([
      ['DNS MX', 'example.com', true],
      ['DNS A', 'mx.example.com', true],
      ['DNS AAAA', 'mx.example.com', true],
    ]);
  });

  test('a query still open has its subsegment open', async () => {
    const tracer = new FakeTracer();
    const pending = tracedMxResolver(zone(5), tracer).resolveMx('example.com');

    expect(tracer.subsegments.map((s) => s.closed)).toEqual([false]);
    await pending;
    expect(tracer.subsegments.map((s) => s.closed)).toEqual([true]);
  });

  test('an adapter that throws closes its subsegment, flagged, and the error goes on', async () => {
    const tracer = new FakeTracer();
    const throwing: MxResolver = {
      ...zone(),
      resolveMx: () => Promise.reject(new Error('adapter bug')),
    };

    await expect(tracedMxResolver(throwing, tracer).resolveMx('example.com')).rejects.toThrow('adapter bug');

    expect(tracer.subsegments[0]).toMatchObject({
      closed: true,
      errorFlag: true,
      annotations: { dns_outcome: 'error' },
    });
  });

  test('without a current segment the query runs untraced', async () => {
    const tracer = new FakeTracer();
    tracer.active = false;

    const answer = await tracedMxResolver(zone(), tracer).resolveMx('example.com');

    expect(answer.kind).toBe('records');
    expect(tracer.subsegments).toEqual([]);
  });

  test('the decorated resolver keeps its other members (close)', () => {
    const inner = zone();
    const resolver = tracedMxResolver(inner, new FakeTracer());

    resolver.close();

    expect(inner.closed()).toBe(true);
  });

  test("the custom-hostname verifier's CNAME and TXT queries are traced the same way", async () => {
    const tracer = new FakeTracer();
    const inner: DomainResolver = {
      resolveCname: async () => ({ kind: 'records', records: ['edge.example.net'] }),
      resolveTxt: async () => ({ kind: 'nxdomain' }),
    };
    const resolver = tracedDomainResolver(inner, tracer);

    await resolver.resolveCname('api.customer.example');
    await resolver.resolveTxt('_netintel.api.customer.example');

    expect(tracer.subsegments.map((s) => s.annotations)).toEqual([
      { dns_type: 'CNAME', dns_name: 'api.customer.example', dns_outcome: 'records' },
      { dns_type: 'TXT', dns_name: '_netintel.api.customer.example', dns_outcome: 'nxdomain' },
    ]);
  });

  test('a reverse lookup is traced without its address (personal data)', async () => {
    const tracer = new FakeTracer();
    const lookup = tracedReverseLookup(
      async (ip) => (ip === '192.0.2.1' ? 'host.example.com' : null),
      tracer,
    );

    expect(await lookup('192.0.2.1')).toBe('host.example.com');
    expect(await lookup('198.51.100.7')).toBeNull();

    expect(tracer.subsegments.map((s) => [s.name, s.annotations, s.closed])).toEqual([
      ['DNS PTR', { dns_type: 'PTR', dns_outcome: 'records' }, true],
      ['DNS PTR', { dns_type: 'PTR', dns_outcome: 'none' }, true],
    ]);
  });

  test('only queries that reach a name server are traced: a cached answer opens none', async () => {
    const tracer = new FakeTracer();
    // Nothing listens on port 9: the query fails at once, and the failure is cached for 5 s.
    const resolver = createDnsResolver(
      { servers: ['127.0.0.1:9'], timeoutMs: 200, tries: 1 },
      {},
      (queries) => tracedMxResolver(queries, tracer),
    );
    try {
      await resolver.resolveMx('example.com');
      await resolver.resolveMx('example.com');
    } finally {
      resolver.close();
    }

    expect(tracer.subsegments.map((s) => [s.name, s.annotations.dns_outcome, s.closed])).toEqual([
      ['DNS MX', 'failure', true],
    ]);
  });
});
