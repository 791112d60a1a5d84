import type { DomainResolver } from '../custom-hostnames/ports.js';
import type { DnsLookup, MxResolver } from '../dns/mx-resolver.js';

// DNS queries as X-Ray subsegments (docs/architecture.md, Tracing), added where the resolvers are wired: the DNS code
// stays free of tracing. One subsegment per query that reaches the network (the decorators wrap
// the uncached resolver, under the cache), named `DNS <type>` and annotated with the query's type,
// name and outcome, so a trace shows which lookups a slow email check waited for.

/** What the decorators need of a tracer: Powertools Tracer has it, tests pass a fake. */
export interface QueryTracer {
  /** The current segment or subsegment: the invocation's handler subsegment in Lambda. */
  getSegment(): { addNewSubsegment(name: string): QuerySubsegment } | undefined;
}

export interface QuerySubsegment {
  addAnnotation(key: string, value: string | number | boolean): void;
  addErrorFlag(): void;
  close(): void;
}

/**
 * One query in its own subsegment. No `setSegment`: a query opens nothing below itself, and
 * queries of one request run concurrently, so none may become the others' current segment.
 */
export async function traceQuery<T>(
  tracer: QueryTracer,
  query: { type: string; name?: string },
  run: () => Promise<T>,
  outcomeOf: (answer: T) => { outcome: string; failed?: boolean; code?: string },
): Promise<T> {
  const subsegment = tracer.getSegment()?.addNewSubsegment(`DNS ${query.type}`);
  if (!subsegment) return run();
  subsegment.addAnnotation('dns_type', query.type);
  if (query.name !== undefined) subsegment.addAnnotation('dns_name', query.name);
  try {
    const answer = await run();
    const { outcome, failed, code } = outcomeOf(answer);
    subsegment.addAnnotation('dns_outcome', outcome);
    if (code !== undefined) subsegment.addAnnotation('dns_error', code);
    if (failed) subsegment.addErrorFlag();
    return answer;
  } catch (error) {
    // The resolvers answer every outcome as a value; a throw is a bug in the adapter.
    subsegment.addAnnotation('dns_outcome', 'error');
    subsegment.addErrorFlag();
    throw error;
  } finally {
    subsegment.close();
  }
}

/** records, nxdomain, nodata, or failure with its code (SERVFAIL, timeout): only failures are errors. */
function lookupOutcome(answer: DnsLookup<unknown>): { outcome: string; failed?: boolean; code?: string } {
  if (answer.kind !== 'failure') return { outcome: answer.kind };
  return { outcome: 'failure', failed: true, ...(answer.code ? { code: answer.code } : {}) };
}

function traced<T>(
  tracer: QueryTracer,
  type: string,
  name: string,
  run: () => Promise<DnsLookup<T>>,
): Promise<DnsLookup<T>> {
  return traceQuery(tracer, { type, name }, run, lookupOutcome);
}

/**
 * The email checks' resolver (MX, A, AAAA), traced. Its other members are copied as they are: the
 * adapters' close() closes over its resolver (dns/resolver.ts).
 */
export function tracedMxResolver<R extends MxResolver>(inner: R, tracer: QueryTracer): R {
  return {
    ...inner,
    resolveMx: (domain: string) => traced(tracer, 'MX', domain, () => inner.resolveMx(domain)),
    resolveA: (domain: string) => traced(tracer, 'A', domain, () => inner.resolveA(domain)),
    resolveAaaa: (domain: string) => traced(tracer, 'AAAA', domain, () => inner.resolveAaaa(domain)),
  };
}

/** The custom-hostname verifier's resolver (CNAME, TXT), traced; its other members copied (close). */
export function tracedDomainResolver<R extends DomainResolver>(inner: R, tracer: QueryTracer): R {
  return {
    ...inner,
    resolveCname: (name: string) => traced(tracer, 'CNAME', name, () => inner.resolveCname(name)),
    resolveTxt: (name: string) => traced(tracer, 'TXT', name, () => inner.resolveTxt(name)),
  };
}

/**
 * A reverse lookup (?include=hostname), traced. The queried name is the caller's visitor's IP
 * address, personal data: it is left out of the subsegment, as responses are.
 */
export function tracedReverseLookup(
  lookup: (ip: string) => Promise<string | null>,
  tracer: QueryTracer,
): (ip: string) => Promise<string | null> {
  return (ip) =>
    traceQuery(
      tracer,
      { type: 'PTR' },
      () => lookup(ip),
      (name) => ({ outcome: name ? 'records' : 'none' }),
    );
}
