import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { TravelPutBody } from '../../../functions/account-travel-put/contract.js';
import type { KeyRouteName } from '../../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../../functions/contracts.js';
import { JobsCreateHeaders, JobsCreateQuery } from '../../../functions/jobs-create/contract.js';
import { JobsListQuery } from '../../../functions/jobs-list/contract.js';
import { RulesChangeHeaders } from '../../../functions/lib/accounts/rules-schema.js';
import type { RouteContract } from '../../../functions/lib/http/contract.js';
import { ValidationError } from '../../../functions/lib/http/errors.js';
import { headerValues } from '../../../functions/lib/http/multi-value.js';
import { fromApiGatewayEvent } from '../../../functions/lib/http/request.js';
import { headersNamedBy, validate, validateHeaders } from '../../../functions/lib/http/validate.js';
import { FILENAME_MESSAGES } from '../../../functions/lib/jobs/filename.js';
import { encodeCursor, LIST_LIMIT_MAX } from '../../../functions/lib/jobs/list-cursor.js';
import type * as z from '../../../functions/lib/zod.js';
import { LookupIpPath, LookupIpQuery } from '../../../functions/lookup-ip/contract.js';
import { KEY_ROUTES } from '../../../functions/routes.js';
import { UsageQuery } from '../../../functions/usage/contract.js';

// A route's query, path and headers are validated by its contract, like its body, through the one
// mapping from zod issues to the API's codes (functions/lib/http/validate.ts). Whatever strings a
// client puts in a query string or a header, validation accepts them or refuses them with a code
// the route documents, and never throws anything else.

/** The API code and message a validation answers with, or 'accepted'. */
function outcome(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (err) {
    if (err instanceof ValidationError) return err.code;
    throw err;
  }
}

function refusal(run: () => unknown): { code: string; message: string; status: number } | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    if (err instanceof ValidationError) return { code: err.code, message: err.message, status: err.status };
    throw err;
  }
}

const query = (schema: z.ZodMiniType, values: Record<string, string>) => () =>
  validate(schema, values, 'query');

describe('request-parameters', () => {
  describe('GET /v1/email/jobs: limit and cursor', () => {
    test('a limit of 1 to 100 in digits is accepted as the number; absent is the default', () => {
      expect(validate(JobsListQuery, { limit: '1' }, 'query').limit).toBe(1);
      expect(validate(JobsListQuery, { limit: '100' }, 'query').limit).toBe(100);
      expect(validate(JobsListQuery, { limit: '020' }, 'query').limit).toBe(20);
      expect(validate(JobsListQuery, {}, 'query').limit).toBeUndefined();
    });

    test('a limit outside 1 to 100 or not a whole number in digits is 400 invalid_query', () => {
      for (const limit of ['0', '101', 'abc', '1.5', '-1', '', ' 5', '1e1', '0x10', '1000', '+5', '５']) {
        expect([limit, refusal(query(JobsListQuery, { limit }))]).toEqual([
          limit,
          { status: 400, code: 'invalid_query', message: `limit: an integer from 1 to ${LIST_LIMIT_MAX}.` },
        ]);
      }
    });

    test('a cursor the service made is accepted; anything else is 400 invalid_query', () => {
      const cursor = encodeCursor({
        createdAt: '2026-11-24T16:32:17.903Z',
        id: 'd3c4d107-2c44-4e71-9b9e-219f0f5fb7de',
      });
      expect(validate(JobsListQuery, { cursor }, 'query').cursor).toBe(cursor);
      const junk = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const bad of [
        '',
        'not base64!',
        'A'.repeat(300),
        Buffer.from('not json').toString('base64url'),
        junk(null),
        junk({ c: 1, i: 2 }),
        junk({ c: 'yesterday', i: '00000000-0000-4000-8000-000000000000' }),
        junk({ c: '2026-01-01T00:00:00.000Z', i: 'JOB#x' }),
      ]) {
        expect(refusal(query(JobsListQuery, { cursor: bad }))).toEqual({
          status: 400,
          code: 'invalid_query',
          message: 'cursor: use the nextCursor of the previous page.',
        });
      }
    });

    test('with both wrong, the limit is the one answered', () => {
      expect(refusal(query(JobsListQuery, { limit: '0', cursor: 'x' }))?.message).toMatch(/^limit:/);
    });
  });

  describe('GET /v1/lookup/{ip} and GET /v1/geo: ip, userAgent and include', () => {
    test('the path holds one address, or it is 400 invalid_ip', () => {
      expect(validate(LookupIpPath, { ip: '::ffff:8.8.8.8' }, 'path').ip).toBe('::ffff:8.8.8.8');
      for (const ip of [
        '01.2.3.4',
        '1.2.3',
        'fe80::1%eth0',
        '1.2.3.0/24',
        'example.com',
        ' 1.2.3.4',
        '[::1]',
        '',
      ]) {
        expect(refusal(() => validate(LookupIpPath, { ip }, 'path'))).toEqual({
          status: 400,
          code: 'invalid_ip',
          message: 'The path must hold one IPv4 or IPv6 address.',
        });
      }
    });

    test('include=hostname asks for the hostname; an empty include= is the same as none; any other value is 400 invalid_query', () => {
      for (const schema of [LookupIpQuery, CONTRACTS.geo.query!]) {
        expect((validate(schema, { include: 'hostname' }, 'query') as { include?: string }).include).toBe(
          'hostname',
        );
        expect((validate(schema, { include: '' }, 'query') as { include?: string }).include).toBeUndefined();
        expect((validate(schema, {}, 'query') as { include?: string }).include).toBeUndefined();
        for (const include of ['everything', 'HOSTNAME', 'hostname ', 'hostname,security']) {
          expect(refusal(query(schema, { include }))).toEqual({
            status: 400,
            code: 'invalid_query',
            message: 'include takes the value hostname.',
          });
        }
      }
    });

    test('a userAgent over 1024 characters is 400 invalid_query, and is answered before a wrong include', () => {
      expect(validate(LookupIpQuery, { userAgent: 'u'.repeat(1024) }, 'query').userAgent).toHaveLength(1024);
      expect(refusal(query(LookupIpQuery, { userAgent: 'u'.repeat(1025), include: 'nope' }))).toEqual({
        status: 400,
        code: 'invalid_query',
        message: 'userAgent is longer than 1024 characters.',
      });
    });
  });

  describe('a query parameter given twice', () => {
    const event = (single: Record<string, string>, multi: Record<string, string[]>) =>
      ({
        httpMethod: 'GET',
        path: '/v1/lookup/8.8.8.8',
        queryStringParameters: single,
        multiValueQueryStringParameters: multi,
        headers: {},
        body: null,
      }) as unknown as Parameters<typeof fromApiGatewayEvent>[0];

    test('fields is one list of every value; any other parameter keeps its last value, as API Gateway does', () => {
      const { query } = fromApiGatewayEvent(
        event(
          { fields: 'asn', include: 'hostname' },
          { fields: ['country', 'asn'], include: ['nope', 'hostname'] },
        ),
      );
      expect(query).toEqual({ fields: 'country,asn', include: 'hostname' });
    });

    test('fields once, or an event without the multi-value map: as sent', () => {
      expect(fromApiGatewayEvent(event({ fields: 'asn' }, { fields: ['asn'] })).query).toEqual({
        fields: 'asn',
      });
      const bare = event({ fields: 'asn' }, {});
      delete (bare as { multiValueQueryStringParameters?: unknown }).multiValueQueryStringParameters;
      expect(fromApiGatewayEvent(bare).query).toEqual({ fields: 'asn' });
    });
  });

  describe("a whole number beyond 2^53 is refused by the field's own bounds", () => {
    test('the message names the bound the caller broke, not the safe-integer range', () => {
      expect(refusal(() => validate(TravelPutBody, { maxSpeedKmh: 2 ** 53 }))).toEqual({
        status: 400,
        code: 'invalid_field',
        message: 'maxSpeedKmh must be at most 20000.',
      });
      expect(refusal(() => validate(TravelPutBody, { minSeconds: -(2 ** 53) }))).toEqual({
        status: 400,
        code: 'invalid_field',
        message: 'minSeconds must be at least 0.',
      });
      expect(refusal(query(UsageQuery, { days: '1e16' }))?.message).toBe('days: an integer from 1 to 90.');
      // A fraction within the bounds is still refused as one.
      expect(refusal(() => validate(TravelPutBody, { maxSpeedKmh: 900.5 }))?.message).toBe(
        'maxSpeedKmh must be a whole number.',
      );
    });
  });

  describe('a contract header sent twice', () => {
    const sent = (multiValueHeaders: Record<string, string[]>) =>
      fromApiGatewayEvent({
        httpMethod: 'PUT',
        path: '/v1/account/travel',
        headers: Object.fromEntries(Object.entries(multiValueHeaders).map(([k, v]) => [k, v.at(-1)])),
        multiValueHeaders,
        body: null,
      } as unknown as Parameters<typeof fromApiGatewayEvent>[0]);

    test('the request names every header sent more than once, whatever the case of each line', () => {
      expect(sent({ 'If-Match': ['"a"', '"b"'], Accept: ['*/*'] }).repeatedHeaders).toEqual(['if-match']);
      expect(sent({ 'idempotency-key': ['a'], 'Idempotency-Key': ['b'] }).repeatedHeaders).toEqual([
        'idempotency-key',
      ]);
      expect(sent({ 'If-Match': ['"a"'] }).repeatedHeaders).toEqual([]);
      // Names of Object.prototype's members are names like any other (they threw: a 500). An object
      // literal's __proto__ would set its prototype: the own property is made with fromEntries.
      const proto = Object.fromEntries([['__proto__', ['a', 'b']]]) as Record<string, string[]>;
      expect(sent({ ...proto, constructor: ['c', 'd'], toString: ['e'] }).repeatedHeaders).toEqual([
        '__proto__',
        'constructor',
      ]);
      expect(headerValues({ multiValueHeaders: proto })).toEqual(proto);
    });

    test('is refused as a malformed one (400), not decided by the last one: two If-Match tags, two Idempotency-Keys', () => {
      expect(
        refusal(() => validateHeaders(RulesChangeHeaders, sent({ 'If-Match': ['"old"', '*'] }))),
      ).toEqual({
        status: 400,
        code: 'invalid_field',
        message: 'If-Match was sent more than once: send it once.',
      });
      expect(
        refusal(() =>
          validateHeaders(
            JobsCreateHeaders,
            sent({ 'Idempotency-Key': ['a', 'b'] }),
            'invalid_idempotency_key',
          ),
        ),
      ).toEqual({
        status: 400,
        code: 'invalid_idempotency_key',
        message: 'Idempotency-Key was sent more than once: send it once.',
      });
      // A header the contract does not name may repeat: it is not the route's to judge.
      expect(validateHeaders(JobsCreateHeaders, sent({ Accept: ['a', 'b'] }))).toEqual({});
    });
  });

  describe('POST /v1/email/jobs: Idempotency-Key and filename', () => {
    test('a key of 1 to 255 characters without control characters is accepted, whatever the case of the header name', () => {
      expect(
        validateHeaders(JobsCreateHeaders, { headers: {}, repeatedHeaders: [] })['Idempotency-Key'],
      ).toBeUndefined();
      expect(
        validateHeaders(JobsCreateHeaders, {
          headers: { 'idempotency-key': 'k'.repeat(255) },
          repeatedHeaders: [],
        })['Idempotency-Key'],
      ).toBe('k'.repeat(255));
      expect(headersNamedBy(JobsCreateHeaders, { 'idempotency-key': 'a', 'x-other': 'b' })).toEqual({
        'Idempotency-Key': 'a',
      });
    });

    test('a malformed key is 400 invalid_idempotency_key: empty, over 255 characters, control characters', () => {
      for (const bad of ['', 'k'.repeat(256), 'a\nb', 'a\u0000b', 'tab\there', 'del\u007f']) {
        expect(
          refusal(() =>
            validateHeaders(JobsCreateHeaders, { headers: { 'idempotency-key': bad }, repeatedHeaders: [] }),
          ),
        ).toEqual({
          status: 400,
          code: 'invalid_idempotency_key',
          message: 'Idempotency-Key must be 1 to 255 characters without control characters.',
        });
      }
    });

    test('?filename= of up to 255 characters names the list; a longer one is 400 invalid_body', () => {
      expect(validate(JobsCreateQuery, { filename: 'f'.repeat(255) }, 'query').filename).toHaveLength(255);
      expect(refusal(query(JobsCreateQuery, { filename: 'f'.repeat(256) }))).toEqual({
        status: 400,
        code: 'invalid_body',
        message: 'filename is too long.',
      });
      for (const bad of [
        '\u001b[2J\u001b[31mEVIL\u001b[0m.csv',
        'a\r\nb.csv',
        'a\u0000.csv',
        'a\u009b2J.csv',
      ]) {
        expect(refusal(query(JobsCreateQuery, { filename: bad }))).toEqual({
          status: 400,
          code: 'invalid_body',
          message: FILENAME_MESSAGES.control,
        });
      }
    });
  });

  /** Every route whose contract has a query, path or header schema, with the codes it documents. */
  const PARTS = KEY_ROUTES.map((r) => [r.name, CONTRACTS[r.name as KeyRouteName]] as const).filter(
    ([, c]) => c.query || c.params || c.headers,
  );

  /** Values a hostile client puts in a query string, a path segment or a header. */
  const hostile = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: 'grapheme', maxLength: 2000 }),
    fc.stringMatching(/^[0-9]{0,5}$/),
    fc.constantFrom(
      '',
      'hostname',
      '8.8.8.8',
      '::1',
      '__proto__',
      'constructor',
      'x'.repeat(5000),
      '\u0000',
      '%00',
    ),
  );
  /** Names the contracts use, in any case, and strangers. */
  const NAMES = [
    'limit',
    'cursor',
    'include',
    'userAgent',
    'key',
    'filename',
    'ip',
    'id',
    'idempotency-key',
    'if-match',
    'days',
  ];
  const parameters = fc.dictionary(fc.oneof(fc.constantFrom(...NAMES), fc.string()), hostile, { maxKeys: 8 });

  describe('query, path and header validation by contract', () => {
    test('the routes with query, path or header parameters are the ones expected', () => {
      expect(PARTS.map(([name]) => name).sort()).toEqual([
        'account-email-rules-put',
        'account-geofeed-delete',
        'account-geofeed-put',
        'account-travel-put',
        'geo',
        'jobs-create',
        'jobs-get',
        'jobs-list',
        'jobs-results',
        'lookup-ip',
        'usage',
        'webhooks-delete',
        'webhooks-deliveries',
        'webhooks-get',
        'webhooks-redeliver',
        'webhooks-rotate',
        'webhooks-test',
        'webhooks-update',
      ]);
    });

    test.each(PARTS)(
      '%s: any strings are accepted or refused with a code the route documents',
      (_name, contract) => {
        const documented = new Set([...(contract.requestErrors ?? []), ...(contract.errors ?? [])]);
        fc.assert(
          fc.property(parameters, parameters, parameters, (q, path, headers) => {
            const lowerCased = Object.fromEntries(
              Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]),
            );
            const results = [
              contract.query && outcome(() => validate(contract.query!, q, 'query')),
              contract.params &&
                outcome(() => validate(contract.params!, { ...path, ...pathOf(contract, q) }, 'path')),
              contract.headers &&
                outcome(() =>
                  validateHeaders(contract.headers as z.ZodMiniObject, {
                    headers: lowerCased,
                    repeatedHeaders: [],
                  }),
                ),
            ].filter((r) => r !== undefined);
            for (const result of results)
              expect(result === 'accepted' || documented.has(result as never)).toBe(true);
          }),
          { numRuns: 1000 },
        );
      },
    );
  });

  /** API Gateway always fills a route's path parameters: one hostile value for each. */
  function pathOf(contract: RouteContract, values: Record<string, string>): Record<string, string> {
    const names = Object.keys((contract.params as z.ZodMiniObject).shape);
    return Object.fromEntries(names.map((n) => [n, Object.values(values)[0] ?? '']));
  }
});
