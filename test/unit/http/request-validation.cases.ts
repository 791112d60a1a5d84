import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import type { KeyRouteName } from '../../../functions/api-reference/route-contracts.js';
import { CONTRACTS } from '../../../functions/contracts.js';
import { HostnameBody } from '../../../functions/dashboard-hostnames-add/contract.js';
import { ValidationError } from '../../../functions/lib/http/errors.js';
import { validate } from '../../../functions/lib/http/validate.js';
import { KEY_ROUTES } from '../../../functions/routes.js';

// A route's contract is its request validator (functions/lib/http/validate.ts maps zod issues to
// error codes). Whatever JSON a client sends, validation either accepts it or refuses it with the
// API's ValidationError, under one of the codes the route's contract declares.

/** The key routes' contracts (a dashboard route's body errors are listed in its contract's `errors`). */
const VALIDATED = KEY_ROUTES.map((r) => [r.name, CONTRACTS[r.name as KeyRouteName]] as const).filter(
  ([, c]) => c.body && c.requestErrors,
);

/** The names fields of the bodies use, so generated objects hit real fields as well as strangers. */
const FIELDS = [
  ...['ips', 'emails', 'email', 'ip', 'userId', 'userAgent', 'commit', 'other'],
  ...['allow', 'block', 'relayAliases', 'maxSpeedKmh', 'minDistanceKm', 'minSeconds'],
];

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('8.8.8.8', '::1', '999.1.1.1', '', 'a@b.example', 'x'.repeat(257)),
  fc.array(fc.oneof(fc.constantFrom('1.2.3.4', 'a@b.example'), fc.jsonValue({ maxDepth: 1 })), {
    maxLength: 105,
  }),
);
const body = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: FIELDS.length }),
);

function outcome(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (err) {
    if (err instanceof ValidationError) return err.code;
    throw err;
  }
}

/** The message of a refusal ('' when accepted). */
function messageOf(run: () => unknown): string {
  try {
    run();
    return '';
  } catch (err) {
    if (err instanceof ValidationError) return err.message;
    throw err;
  }
}

/** zod's own English, which a caller should never read. */
const ZOD_TEXT = /Too small: expected|Too big: expected|Invalid input: expected/;

describe('request-validation', () => {
  describe('request validation by contract', () => {
    test('the routes whose contract validates their body declare their refusal codes', () => {
      expect(VALIDATED.map(([name]) => name).sort()).toEqual([
        'account-email-rules-put',
        'account-travel-put',
        'email-batch',
        'email-validate',
        'lookup-batch',
        'risk-baseline-delete',
        'risk-check',
        'signup-check',
        'webhooks-create',
        'webhooks-redeliver',
        'webhooks-rotate',
        'webhooks-update',
      ]);
    });

    test.each(VALIDATED)(
      '%s: any JSON body is accepted or refused with a code the route documents',
      (_name, contract) => {
        const documented = new Set(contract.requestErrors);
        fc.assert(
          fc.property(body, (b) => {
            const result = outcome(() => validate(contract.body!, b));
            expect(result === 'accepted' || documented.has(result as never)).toBe(true);
          }),
          { numRuns: 2000 },
        );
      },
    );

    test('a batch is judged by its size before its items: 101 malformed IPs are batch_too_large', () => {
      const body = { ips: Array.from({ length: 101 }, () => 7) };
      expect(outcome(() => validate(CONTRACTS['lookup-batch'].body!, body))).toBe('batch_too_large');
      expect(outcome(() => validate(CONTRACTS['email-batch'].body!, { emails: [] }))).toBe('empty_batch');
    });

    test('batch sizes are refused in plain words, on both batch routes', () => {
      const lookup = CONTRACTS['lookup-batch'].body!;
      const emails = CONTRACTS['email-batch'].body!;
      expect(messageOf(() => validate(lookup, { ips: [] }))).toBe(
        'The batch is empty: send 1 to 100 addresses in `ips`.',
      );
      expect(messageOf(() => validate(emails, { emails: [] }))).toBe(
        'The batch is empty: send 1 to 100 addresses in `emails`.',
      );
      expect(
        messageOf(() => validate(emails, { emails: Array.from({ length: 101 }, () => 'a@b.example') })),
      ).toBe('The batch is too large: 101 addresses were sent in `emails`; send at most 100 a call.');
      expect(messageOf(() => validate(lookup, { ips: Array.from({ length: 150 }, () => 7) }))).toBe(
        'The batch is too large: 150 addresses were sent in `ips`; send at most 100 a call.',
      );
    });

    test("a built-in check's refusal is a sentence of ours, never zod's text: an empty hostname is empty", () => {
      expect(messageOf(() => validate(HostnameBody, { hostname: '' }))).toBe('hostname is empty.');
      expect(messageOf(() => validate(HostnameBody, { hostname: 'a'.repeat(254) }))).toBe(
        'hostname is too long: at most 253 characters.',
      );
      expect(messageOf(() => validate(HostnameBody, { hostname: 5 }))).toBe('hostname must be a string.');
    });

    test.each(VALIDATED)("%s: no refusal of any JSON body quotes zod's own text", (_name, contract) => {
      fc.assert(
        fc.property(body, (b) => {
          expect(messageOf(() => validate(contract.body!, b))).not.toMatch(ZOD_TEXT);
        }),
        { numRuns: 1000 },
      );
    });

    test('the shape comes before field rules: a mistyped ip beside an empty userId is invalid_field', () => {
      const risk = CONTRACTS['risk-check'].body!;
      expect(outcome(() => validate(risk, { userId: '', ip: 5 }))).toBe('invalid_field');
      expect(outcome(() => validate(risk, { userId: '', ip: 'nope' }))).toBe('invalid_user_id');
      expect(outcome(() => validate(risk, { userId: 'u', ip: 'nope' }))).toBe('invalid_ip');
      expect(outcome(() => validate(risk, { ip: '8.8.8.8' }))).toBe('missing_field');
    });

    test("a webhook URL over 2,048 characters is invalid_webhook_url, as a job's webhookUrl is, in plain words", () => {
      const long = `https://hooks.shop.example/${'a'.repeat(2048)}`;
      const refusal = { code: 'invalid_webhook_url', message: 'The URL is longer than 2,048 characters.' };
      expect(() =>
        validate(CONTRACTS['webhooks-create'].body!, { url: long, events: ['job.completed'] }),
      ).toThrow(expect.objectContaining(refusal));
      expect(() => validate(CONTRACTS['webhooks-update'].body!, { url: long })).toThrow(
        expect.objectContaining(refusal),
      );
      expect(() => validate(CONTRACTS['jobs-create'].query!, { webhookUrl: long }, 'query')).toThrow(
        expect.objectContaining({ code: 'invalid_webhook_url' }),
      );
      // 2,048 exactly is not refused for its length.
      const longest = `https://hooks.shop.example/${'a'.repeat(2048 - 27)}`;
      expect(longest).toHaveLength(2048);
      expect(outcome(() => validate(CONTRACTS['webhooks-update'].body!, { url: longest }))).toBe('accepted');
    });

    test('an IP batch item that is not a string is invalid_ip naming its index', () => {
      expect(() => validate(CONTRACTS['lookup-batch'].body!, { ips: ['8.8.8.8', null] })).toThrow(
        expect.objectContaining({ code: 'invalid_ip', message: expect.stringContaining('ips[1]') }),
      );
    });
  });
});
