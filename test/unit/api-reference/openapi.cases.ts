import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  codeSamples,
  jsLiteral,
  SAMPLE_NODE_VERSION,
} from '../../../functions/api-reference/code-samples.js';
import { buildOpenApi, ErrorSchema } from '../../../functions/api-reference/openapi.js';
import type { KeyRouteEntry, KeyRouteName } from '../../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../../functions/contracts.js';
import { GEO_ALWAYS } from '../../../functions/geo/contract.js';
import { GEOFEED_MEDIA_TYPES } from '../../../functions/lib/accounts/rules-schema.js';
import type { EmailCheckResult } from '../../../functions/lib/email/index.js';
import { sortReasons } from '../../../functions/lib/email/reasons.js';
import { verdictFor } from '../../../functions/lib/email/verdict.js';
import type { RouteExample } from '../../../functions/lib/http/contract.js';
import { ERROR_CODES, type ErrorCode } from '../../../functions/lib/http/errors.js';
import { validate, validateHeaders } from '../../../functions/lib/http/validate.js';
import { BATCH_FIELDS, GEO_FIELDS, LOOKUP_FIELDS } from '../../../functions/lib/ip/field-catalogs.js';
import { type FieldCatalog, parseFields, selectFields } from '../../../functions/lib/ip/fields.js';
import { JOB_RETENTION_DAYS, type Job } from '../../../functions/lib/jobs/job.js';
import { encodeCursor } from '../../../functions/lib/jobs/list-cursor.js';
import { type SignupReason, scoreOf, verdictOfScore } from '../../../functions/lib/signup/score.js';
import type * as z from '../../../functions/lib/zod.js';
import { BATCH_ITEM_ALWAYS } from '../../../functions/lookup-batch/contract.js';
import { LOOKUP_ALWAYS } from '../../../functions/lookup-ip/contract.js';
import { API_TAGS, isKeyRoute, ROUTES, type Route } from '../../../functions/routes.js';

// The API reference (/docs, /v1/openapi.json) as a reader uses it: sections, the errors each
// operation can answer, examples that are valid and tell one consistent story, and code samples
// that send what the examples show. test/integration/docs.cases.ts replays the examples against the
// service itself.

interface Operation {
  tags: string[];
  description: string;
  security: unknown[];
  responses: Record<string, Response>;
  requestBody?: { content: Record<string, { schema: { type?: string; description?: string } }> };
}
interface Response {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: unknown; examples?: Record<string, { value: unknown }> }>;
}

const doc = buildOpenApi(ROUTES, CONTRACTS) as unknown as {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
};
/** The routes called with a key: the operations with examples, code samples and the pipeline's refusals. */
const routes = ROUTES.filter((r): r is KeyRouteEntry => isKeyRoute(r));
const opOf = (route: { path: string; method: string }) => doc.paths[route.path]![route.method.toLowerCase()]!;
const codesAt = (route: Route, status: number) =>
  Object.keys(opOf(route).responses[String(status)]?.content?.['application/json']?.examples ?? {});
const examples = (name: KeyRouteName) => CONTRACTS[name].examples;
const response = <T>(name: KeyRouteName, example: string) => examples(name)[example]!.response as T;

/** True when `schema` accepts `value` and drops nothing from it: an extra field anywhere fails. */
function expectExactly(schema: z.ZodMiniType, value: unknown): void {
  const parsed = schema.safeParse(value);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(parsed.data).toEqual(value);
}

/**
 * The `required` fields of `schema` missing from `value`, as paths: walks objects and arrays, and an
 * anyOf by its first branch whose type fits (enough to tell a whole answer's schema from a cut one's).
 */
function missingRequired(schema: unknown, value: unknown, at = ''): string[] {
  const s = schema as {
    anyOf?: unknown[];
    type?: string;
    properties?: Record<string, unknown>;
    required?: string[];
    items?: unknown;
  };
  if (s.anyOf) {
    const fits = s.anyOf.find((b) => {
      const t = (b as { type?: string }).type;
      return value === null
        ? t === 'null'
        : Array.isArray(value)
          ? t === 'array'
          : typeof value === 'object'
            ? t === 'object'
            : t !== 'null';
    });
    return fits === undefined ? [`${at}: no branch`] : missingRequired(fits, value, at);
  }
  if (s.type === 'array' && Array.isArray(value))
    return value.flatMap((v, i) => missingRequired(s.items, v, `${at}[${i}]`));
  if (s.type !== 'object' || typeof value !== 'object' || value === null) return [];
  const v = value as Record<string, unknown>;
  return [
    ...(s.required ?? []).filter((k) => !(k in v)).map((k) => `${at}.${k}`),
    ...Object.entries(v).flatMap(([k, x]) =>
      s.properties?.[k] ? missingRequired(s.properties[k], x, `${at}.${k}`) : [],
    ),
  ];
}

describe('openapi', () => {
  describe('answers cut by fields', () => {
    const cut = (answer: object, names: string, catalog: FieldCatalog, always: readonly string[]) => {
      const parsed = parseFields(names, catalog);
      if (!parsed.ok) throw new Error(parsed.message);
      return selectFields(answer, parsed.selection, always);
    };
    test.each([
      ['geo', GEO_FIELDS, GEO_ALWAYS, false],
      ['lookup-ip', LOOKUP_FIELDS, LOOKUP_ALWAYS, false],
      ['lookup-batch', BATCH_FIELDS, BATCH_ITEM_ALWAYS, true],
    ] as const)(
      '%s: the whole answer and one cut by fields each fit a branch of the 200 schema',
      (name, catalog, always, batch) => {
        const route = ROUTES.find((r) => r.name === name)!;
        const schema = opOf(route).responses['200']!.content!['application/json']!.schema as {
          anyOf: unknown[];
        };
        expect(schema.anyOf).toHaveLength(2);
        const [whole, selected] = schema.anyOf;
        const example = Object.values(examples(name)).find(
          (e) => !e.query?.fields && !(e.body as { fields?: unknown } | undefined)?.fields,
        )!.response as Record<string, unknown>;
        const cutOne = (a: object) => cut(a, 'country,security.isVpn', catalog, always);
        const answer = batch ? { results: (example.results as object[]).map(cutOne) } : cutOne(example);
        // What ?fields= answers: the whole answer's schema refuses it (its fields are required), the cut one takes it.
        expect(missingRequired(whole, answer)).not.toEqual([]);
        expect(missingRequired(selected, answer)).toEqual([]);
        expect(missingRequired(whole, example)).toEqual([]);
        expect(missingRequired(selected, example)).toEqual([]);
      },
    );
  });

  describe('sections', () => {
    test('the reference has the six sections in order, and every operation is in exactly one', () => {
      expect(doc.tags.map((t) => t.name)).toEqual([...API_TAGS]);
      for (const route of ROUTES) {
        expect([route.name, opOf(route).tags]).toEqual([route.name, [route.tag]]);
      }
    });

    test('every route of the table is one operation, secured as its auth says', () => {
      const operations = Object.values(doc.paths).flatMap((methods) => Object.keys(methods));
      expect(operations).toHaveLength(ROUTES.length);
      const schemes = {
        secret: 'secretKey',
        publishable: 'publishableKey',
        session: 'dashboardSession',
      } as const;
      for (const route of ROUTES as readonly Route[]) {
        const security = opOf(route).security as Record<string, unknown>[];
        const named = security.flatMap((s) => Object.keys(s));
        expect([route.name, named]).toEqual([route.name, route.auth === 'none' ? [] : [schemes[route.auth]]]);
      }
    });
  });

  describe('the errors each operation can answer', () => {
    test('every operation lists 401 invalid_api_key and 403 wrong_key_type; publishable ones also origin_not_allowed', () => {
      for (const route of routes) {
        expect(codesAt(route, 401)).toEqual(['invalid_api_key']);
        expect(codesAt(route, 403)).toContain('wrong_key_type');
        expect(codesAt(route, 403).includes('origin_not_allowed')).toBe(route.auth === 'publishable');
      }
    });

    test('every operation lists 429 rate_limit_exceeded with Retry-After; billed ones also monthly_limit_exceeded', () => {
      for (const route of routes) {
        const expected =
          route.billing.per === 'none'
            ? ['rate_limit_exceeded']
            : ['rate_limit_exceeded', 'monthly_limit_exceeded'];
        expect([route.name, codesAt(route, 429)]).toEqual([route.name, expected]);
        expect(opOf(route).responses['429']!.headers).toHaveProperty('Retry-After');
      }
    });

    test('X-RateLimit-* are declared where the counter counted the call: not on 401/403/421, and on a 429 for rate_limit_exceeded only', () => {
      const rate = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
      for (const route of routes) {
        const { responses } = opOf(route);
        for (const status of ['401', '403', '421']) {
          for (const name of rate)
            expect([route.name, status, name, responses[status]?.headers?.[name]]).toEqual([
              route.name,
              status,
              name,
              undefined,
            ]);
        }
        const limited = responses['429']!.headers!;
        for (const name of rate) {
          const header = limited[name] as { description?: string; $ref?: string };
          if (route.billing.per === 'none') {
            expect(header).toEqual({ $ref: `#/components/headers/${name}` });
          } else {
            expect(header.description).toMatch(
              /Sent with `rate_limit_exceeded` only, not with `monthly_limit_exceeded`\.$/,
            );
          }
        }
        if (route.billing.per === 'none') expect(limited).not.toHaveProperty(['X-Monthly-Remaining']);
        else expect(limited).toHaveProperty(['X-Monthly-Remaining']);
        // The 200 (or 202, 204) is counted.
        const success = responses[String(CONTRACTS[route.name].responseStatus ?? 200)]!;
        for (const name of rate) expect(success.headers).toHaveProperty([name]);
      }
      // A list job's Idempotency-Key conflicts are refused before admission counts the call.
      const conflicts = opOf(routes.find((r) => r.name === 'jobs-create')!).responses['409']!;
      expect(codesAt(routes.find((r) => r.name === 'jobs-create')!, 409)).toEqual(
        expect.arrayContaining(['idempotency_key_reused', 'idempotency_key_in_progress']),
      );
      expect(conflicts.headers).not.toHaveProperty(['X-RateLimit-Limit']);
      expect(conflicts.headers).toHaveProperty(['Retry-After']);
    });

    test("a list job's results declare the 302 that large files come as, with its Location; no other operation does", () => {
      for (const route of routes) {
        const redirect = opOf(route).responses['302'];
        if (route.name !== 'jobs-results') {
          expect([route.name, redirect]).toEqual([route.name, undefined]);
          continue;
        }
        expect(redirect!.description).toMatch(/over 4 MB: a redirect to a presigned URL/);
        expect(redirect!.headers).toHaveProperty(['Location']);
        expect(redirect!.headers).toHaveProperty(['X-RateLimit-Remaining']);
      }
    });

    test('operations with a JSON body list invalid_json, body_too_large and unsupported_media_type', () => {
      for (const route of routes.filter((r) => CONTRACTS[r.name].body && !CONTRACTS[r.name].textBody)) {
        expect(codesAt(route, 400)).toContain('invalid_json');
        expect(codesAt(route, 413)).toEqual(['body_too_large']);
        expect(codesAt(route, 415)).toEqual(['unsupported_media_type']);
        expect(Object.keys(opOf(route).requestBody!.content)).toContain('application/json');
      }
      expect(codesAt(routes.find((r) => r.name === 'jobs-get')!, 415)).toEqual([]);
    });

    test('a text body (the private geofeed) is offered as its media types only, and answers no invalid_json', () => {
      const texts = routes.filter((r) => CONTRACTS[r.name].textBody);
      expect(texts.map((r) => r.name)).toEqual(['account-geofeed-put']);
      const put = texts[0]!;
      const content = opOf(put).requestBody!.content;
      // The media types the handler accepts (text/plain read as text/csv).
      expect(Object.keys(content)).toEqual([...GEOFEED_MEDIA_TYPES]);
      for (const type of GEOFEED_MEDIA_TYPES)
        expect(content[type]!.schema).toMatchObject({
          type: 'string',
          description: expect.stringContaining('RFC 8805'),
        });
      expect(codesAt(put, 400)).not.toContain('invalid_json');
      expect(codesAt(put, 400)).toEqual(expect.arrayContaining(['invalid_geofeed', 'invalid_body']));
      expect(codesAt(put, 413)).toEqual(['body_too_large']);
      expect(codesAt(put, 415)).toEqual(['unsupported_media_type']);
      // The refusal's example shows the refused lines, as the service answers them.
      const refusal =
        opOf(put).responses['400']!.content!['application/json']!.examples!.invalid_geofeed!.value;
      expect(refusal).toMatchObject({ lines: [{ line: 3, reason: expect.any(String) }] });
      // Its samples read and save a geofeed file, not a list job's.
      const curlOf = (name: KeyRouteName) => {
        const route = routes.find((r) => r.name === name)!;
        const example = Object.values(examples(name))[0]!;
        return codeSamples(route, CONTRACTS[name], example).find((c) => c.lang === 'curl')!.source;
      };
      expect(curlOf('account-geofeed-put')).toContain('--data-binary @geofeed.csv');
      expect(curlOf('account-geofeed-get')).toContain('-o geofeed.csv');
    });

    test('the codes only some routes answer are listed on exactly those', () => {
      const where = (code: ErrorCode) =>
        routes.filter((r) => codesAt(r, ERROR_CODES[code]).includes(code)).map((r) => r.name);
      expect(where('job_not_found')).toEqual(['jobs-get', 'jobs-results']);
      expect(where('job_not_completed')).toEqual(['jobs-results']);
      expect(where('job_expired')).toEqual(['jobs-results']);
      expect(where('location_unavailable')).toEqual(['risk-check']);
      expect(where('idempotency_key_reused')).toEqual(['jobs-create']);
      expect(where('invalid_ip')).toEqual(['lookup-ip', 'lookup-batch', 'signup-check', 'risk-check']);
      expect(where('empty_batch')).toEqual(['lookup-batch', 'email-batch']);
    });

    test("a list job's Idempotency-Key covers its webhookUrl, and the reference says so", () => {
      const create = opOf(routes.find((r) => r.name === 'jobs-create')!) as Operation & {
        parameters: { name: string; description?: string }[];
      };
      const key = create.parameters.find((p) => p.name === 'Idempotency-Key')!;
      expect(key.description).toContain('webhookUrl');
      const reused = create.responses['409']!.content!['application/json']!.examples!.idempotency_key_reused!;
      expect((reused.value as { message: string }).message).toContain('different request');
      expect((reused.value as { message: string }).message).toContain('webhookUrl');
    });

    test('every error response is the shared Error object, with an example of each code under its status', () => {
      for (const route of [...routes]) {
        for (const [status, res] of Object.entries(opOf(route).responses)) {
          if (Number(status) < 400 && status !== 'default') continue;
          const json = res.content!['application/json']!;
          expect(json.schema).toEqual({ $ref: '#/components/schemas/Error' });
          expect(res.headers).toHaveProperty('X-Request-Id');
          for (const [code, example] of Object.entries(json.examples!)) {
            expectExactly(ErrorSchema, example.value);
            expect((example.value as { error: string }).error).toBe(code);
            if (status !== 'default') expect(ERROR_CODES[code as ErrorCode]).toBe(Number(status));
            expect(res.description).toContain(`\`${code}\``);
          }
        }
      }
    });
  });

  describe('examples', () => {
    test('an invalid_ip example is what its route answers: the path, a body field, a batch item', () => {
      const shown = (name: KeyRouteName) =>
        opOf(routes.find((r) => r.name === name)!).responses['400']!.content!['application/json']!.examples!
          .invalid_ip!.value;
      const answered = (run: () => unknown) => {
        try {
          run();
        } catch (error) {
          return { error: (error as { code: string }).code, message: (error as Error).message };
        }
        throw new Error('accepted');
      };
      expect(shown('lookup-ip')).toEqual(
        answered(() => validate(CONTRACTS['lookup-ip'].params!, { ip: 'nope' }, 'path')),
      );
      expect(shown('lookup-batch')).toEqual(
        answered(() => validate(CONTRACTS['lookup-batch'].body!, { ips: ['8.8.8.8', 'nope'] })),
      );
      expect(shown('signup-check')).toEqual(
        answered(() => validate(CONTRACTS['signup-check'].body!, { email: 'a@example.com', ip: 'nope' })),
      );
      expect(shown('risk-check')).toEqual(
        answered(() => validate(CONTRACTS['risk-check'].body!, { userId: 'u1', ip: 'nope' })),
      );
    });

    test("the document points a caller at its own sections, not at the repository's files (which a caller lacks)", () => {
      // Only the operators' note names a repository file, and says it is one.
      const cited = [...JSON.stringify(doc).matchAll(/`?docs\/[\w-]+\.md`?( in the netintel repository)?/g)];
      expect(cited.filter((m) => m[1] === undefined).map((m) => m[0])).toEqual([]);
    });

    test('the document holds no value a schema generator invents (the ±2^53-1 integer bounds)', () => {
      expect(JSON.stringify(doc)).not.toContain('9007199254740991');
    });

    test.each(routes.map((r) => [r.name] as const))(
      '%s: every example request is valid and its response has exactly the published schema',
      (name: KeyRouteName) => {
        const contract = CONTRACTS[name];
        expect(Object.keys(contract.examples).length).toBeGreaterThan(0);
        for (const example of Object.values(contract.examples)) {
          if (contract.params) validate(contract.params, example.params, 'path');
          if (contract.query) validate(contract.query, example.query ?? {}, 'query');
          if (contract.headers) {
            const sent = Object.entries(example.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]);
            validateHeaders(contract.headers as z.ZodMiniObject, {
              headers: Object.fromEntries(sent),
              repeatedHeaders: [],
            });
          }
          if (contract.body && !example.contentType) validate(contract.body, example.body);
          if (example.contentType) expect(contract.bodyMediaTypes).toContain(example.contentType);
          if (contract.responseStatus === 204) expect(example.response).toBeUndefined();
          else expectExactly(contract.response, example.response);
        }
      },
    );

    test('email examples agree: a batch and a signup check hold the single check of the same address', () => {
      const single = Object.values(examples('email-validate')).map((e) => e.response as EmailCheckResult);
      const byAddress = new Map(single.map((r) => [r.email, r]));
      const signups = Object.values(examples('signup-check')).map(
        (e) => (e.response as { email: EmailCheckResult }).email,
      );
      const batch = response<{ results: EmailCheckResult[] }>('email-batch', 'mixed').results;
      const shared = [...batch, ...signups].filter((r) => byAddress.has(r.email));
      expect(shared.map((r) => r.email)).toEqual([
        'jane@gmial.com',
        'someone@mailinator.com',
        'someone@mailinator.com',
      ]);
      for (const result of shared) expect(result).toEqual(byAddress.get(result.email));
    });

    test('email verdicts are the most severe of their reasons, listed most severe first', () => {
      const results = [
        ...Object.values(examples('email-validate')).map((e) => e.response as EmailCheckResult),
        ...response<{ results: EmailCheckResult[] }>('email-batch', 'mixed').results,
      ];
      for (const r of results) {
        expect(r.reasons).toEqual(sortReasons(r.reasons));
        expect(r.verdict).toBe(verdictFor(r.reasons));
      }
    });

    test('signup scores are the sum of their reasons, capped, and their verdicts follow the thresholds', () => {
      for (const e of Object.values(examples('signup-check'))) {
        const r = e.response as { score: number; verdict: string; reasons: SignupReason[] };
        expect(r.score).toBe(scoreOf(r.reasons));
        expect(r.verdict).toBe(verdictOfScore(r.score));
      }
    });

    test('an IP batch item is the single lookup of the same address without userAgent and hostname', () => {
      const {
        userAgent: _u,
        hostname: _h,
        ...single
      } = response<Record<string, unknown>>('lookup-ip', 'google-dns');
      const batch = response<{ results: Record<string, unknown>[] }>('lookup-batch', 'two').results;
      expect(batch.find((r) => r.ip === single.ip)).toEqual(single);
    });

    test('the travel examples are one user: the second check starts from the first one', () => {
      const first = response<{ currentLocation: object }>('risk-check', 'first-check');
      const second = response<{ previousLocation: { observedAt: string } }>(
        'risk-check',
        'impossible-travel',
      );
      const { observedAt: _at, ...previous } = second.previousLocation;
      expect(previous).toEqual(first.currentLocation);
      expect(examples('risk-baseline-delete').delete!.body).toEqual({ userId: 'user-42' });
    });

    test('the list-job examples are two jobs: made, listed, read and downloaded', () => {
      const made = Object.values(examples('jobs-create')).map((e) => e.response as Job);
      const { json, csv } = examples('jobs-create');
      const read = response<Job>('jobs-get', 'completed');
      const listed = response<{ jobs: Job[]; nextCursor: string }>('jobs-list', 'first-page');
      expect(read.id).toBe(made[0]!.id);
      expect(examples('jobs-get').completed!.params).toEqual({ id: read.id });
      expect(examples('jobs-results').csv!.params).toEqual({ id: read.id });
      // Newest first, one per page: the job made last, and a cursor from it.
      expect(listed.jobs.map((j) => j.id)).toEqual([made.at(-1)!.id]);
      expect(listed.nextCursor).toBe(encodeCursor(listed.jobs.at(-1)!));
      const emails = (json!.body as { emails: string[] }).emails;
      expect([read.total, read.credits]).toEqual([emails.length, new Set(emails).size]);
      expect(csv!.body).toMatch(/^name,email\n/);
      for (const job of [...made, read, ...listed.jobs]) {
        expect(Date.parse(job.expiresAt) - Date.parse(job.createdAt)).toBe(JOB_RETENTION_DAYS * 86_400_000);
      }
      const rows = response<string>('jobs-results', 'csv').trim().split('\r\n').slice(1);
      expect(rows.map((r) => r.split(',')[0])).toEqual(emails);
      const verdicts = rows.map((r) => r.split(',')[2]);
      for (const v of ['accept', 'review', 'reject'] as const) {
        expect(read.summary!.verdicts[v]).toBe(verdicts.filter((x) => x === v).length);
      }
    });
  });

  describe('code samples', () => {
    const sampleOf = (name: KeyRouteName, lang: 'curl' | 'JavaScript', example?: RouteExample) => {
      const route = routes.find((r) => r.name === name)!;
      const chosen = example ?? Object.values(CONTRACTS[name].examples)[0]!;
      return codeSamples(route, CONTRACTS[name], chosen).find((s) => s.lang === lang)!.source;
    };

    test('every operation shows curl and JavaScript calls, each sending its key the way its key type goes', () => {
      for (const route of routes) {
        const description = opOf(route).description;
        expect(description).toContain('```bash\ncurl "$NETINTEL_URL/v1/');
        expect(description).toContain('```js\n');
        if (route.auth === 'secret') {
          expect(description).toContain('-H "Authorization: Bearer $NETINTEL_SECRET_KEY"');
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the JavaScript source of the sample
          expect(description).toContain('Authorization: `Bearer ${process.env.NETINTEL_SECRET_KEY}`');
        } else {
          expect(description).toContain('-H "X-Api-Key: $NETINTEL_PUBLISHABLE_KEY"');
          expect(description).toContain("'X-Api-Key': NETINTEL_PUBLISHABLE_KEY");
          expect(description).not.toContain('process.env');
        }
      }
    });

    test('a curl sample sends the example body, method and path', () => {
      const curl = sampleOf('email-batch', 'curl');
      const body = /-d '(.*)'$/m.exec(curl)![1]!;
      expect(JSON.parse(body)).toEqual(examples('email-batch').mixed!.body);
      expect(sampleOf('risk-baseline-delete', 'curl')).toContain('-X DELETE');
      // Every example's curl sends its route's method: curl's own choice (GET; POST with a body) or -X.
      for (const route of routes) {
        for (const example of Object.values(CONTRACTS[route.name].examples)) {
          const source = codeSamples(route, CONTRACTS[route.name], example).find(
            (s) => s.lang === 'curl',
          )!.source;
          const named = / -X ([A-Z]+)/.exec(source)?.[1];
          const sent = named ?? (/ (-d|--data-binary|-F) /.test(source) ? 'POST' : 'GET');
          expect([route.name, sent]).toEqual([route.name, route.method]);
        }
      }
      expect(sampleOf('lookup-ip', 'curl')).toContain('"$NETINTEL_URL/v1/lookup/8.8.8.8?include=hostname"');
      expect(sampleOf('jobs-create', 'curl', examples('jobs-create').csv)).toContain(
        '--data-binary @newsletter.csv',
      );
    });

    test('a JavaScript sample is valid JavaScript that sends the example body', async () => {
      const source = sampleOf('email-batch', 'JavaScript');
      const calls: [string, RequestInit][] = [];
      const fetch = async (url: string, init: RequestInit) => {
        calls.push([url, init]);
        return { ok: true, status: 200, json: async () => ({}) };
      };
      const run = new Function('fetch', 'process', `return (async () => { ${source} })();`);
      await run(fetch, { env: { NETINTEL_URL: 'http://api.test', NETINTEL_SECRET_KEY: 'ni_sec_x' } });
      expect(calls[0]![0]).toBe('http://api.test/v1/email/batch');
      expect(calls[0]![1].method).toBe('POST');
      expect(JSON.parse(calls[0]![1].body as string)).toEqual(examples('email-batch').mixed!.body);
      expect(calls[0]![1].headers).toMatchObject({ Authorization: 'Bearer ni_sec_x' });
    });

    test('a server-side sample asks for the Node.js the project and its client need (package.json engines)', () => {
      for (const file of ['package.json', 'clients/typescript/package.json']) {
        const engines = (JSON.parse(readFileSync(file, 'utf8')) as { engines: { node: string } }).engines;
        expect([file, engines.node]).toEqual([file, `>=${SAMPLE_NODE_VERSION}`]);
      }
      const lookup = routes.find((r) => r.name === 'lookup-ip')!;
      const example = Object.values(CONTRACTS[lookup.name].examples)[0]!;
      const js = codeSamples(lookup, CONTRACTS[lookup.name], example).find((s) => s.lang !== 'curl')!;
      expect(js.source).toContain(`// On your server (Node.js ${SAMPLE_NODE_VERSION} or later)`);
    });

    test('jsLiteral writes any JSON value as JavaScript that evaluates to it', () => {
      fc.assert(
        fc.property(fc.jsonValue(), fc.constantFrom('', '  ', '    '), (value, indent) => {
          const normal = JSON.parse(JSON.stringify(value));
          expect(new Function(`return (${jsLiteral(normal, indent)});`)()).toEqual(normal);
        }),
        { numRuns: 500 },
      );
    });
  });
});
