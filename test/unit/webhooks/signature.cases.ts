import { createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { verifyWebhook } from '../../../clients/typescript/src/webhooks.js';
import { checkSignature, signatureHeader } from '../../../functions/lib/webhooks/signature.js';

// Webhook signatures: what the API signs, the receiver's check (functions/lib/webhooks/signature.ts)
// and the client's verifyWebhook (clients/typescript/src/webhooks.ts) agree, and refuse what they
// must: another body, another secret, a replay outside the tolerance, a malformed header.

const AT = new Date('2026-11-28T02:30:00.000Z');
const now = () => AT.getTime();
const T = AT.getTime() / 1000;
const BODY = JSON.stringify({
  id: 'evt_1',
  type: 'job.completed',
  created: AT.toISOString(),
  data: { id: 'job_1' },
});

describe('webhook signatures', () => {
  test('the header is t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">', () => {
    const header = signatureHeader(['whsec_one'], BODY, AT);
    const mac = createHmac('sha256', 'whsec_one').update(`${T}.${BODY}`).digest('hex');
    expect(header).toBe(`t=${T},v1=${mac}`);
  });

  test("the client's verifyWebhook accepts the server's signatures, any body and secret", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 300 }),
        fc.string({ minLength: 1, maxLength: 64 }),
        async (body, secret) => {
          const header = signatureHeader([secret], body, AT);
          expect(await verifyWebhook(body, header, secret, { now })).toEqual({
            ok: true,
            timestamp: T,
          });
          expect(checkSignature(header, body, secret, AT)).toEqual({ ok: true, timestamp: T });
        },
      ),
      { numRuns: 200 },
    );
  });

  test('during a rotation either secret verifies; another body or secret does not', async () => {
    const header = signatureHeader(['whsec_new', 'whsec_old'], BODY, AT);
    expect((await verifyWebhook(BODY, header, 'whsec_old', { now })).ok).toBe(true);
    expect((await verifyWebhook(BODY, header, 'whsec_new', { now })).ok).toBe(true);
    expect(await verifyWebhook(`${BODY} `, header, 'whsec_new', { now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(await verifyWebhook(BODY, header, 'whsec_other', { now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(checkSignature(header, `${BODY} `, 'whsec_new', AT)).toEqual({ ok: false, reason: 'mismatch' });
  });

  test('a delivery more than 5 minutes from the receiver clock is refused as expired, both ways', async () => {
    const header = signatureHeader(['whsec_one'], BODY, AT);
    const at = (seconds: number) => () => AT.getTime() + seconds * 1000;
    expect((await verifyWebhook(BODY, header, 'whsec_one', { now: at(300) })).ok).toBe(true);
    expect(await verifyWebhook(BODY, header, 'whsec_one', { now: at(301) })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(await verifyWebhook(BODY, header, 'whsec_one', { now: at(-301) })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(checkSignature(header, BODY, 'whsec_one', new Date(AT.getTime() + 301_000))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  test('the hex of a signature is read in either case, as the documented Node snippet reads it', async () => {
    const header = signatureHeader(['whsec_one'], BODY, AT);
    const upper = header.replace(/v1=([0-9a-f]+)/, (_m, sig: string) => `v1=${sig.toUpperCase()}`);
    expect(upper).not.toBe(header);
    expect(await verifyWebhook(BODY, upper, 'whsec_one', { now })).toEqual({ ok: true, timestamp: T });
    expect(checkSignature(upper, BODY, 'whsec_one', AT)).toEqual({ ok: true, timestamp: T });
  });

  test('malformed headers are refused, never thrown', async () => {
    for (const header of [
      null,
      '',
      'v1=abc',
      't=123',
      't=x,v1=00',
      'nonsense',
      `t=1,${'v1=0,'.repeat(2000)}`,
    ]) {
      expect(await verifyWebhook(BODY, header, 'whsec_one', { now })).toEqual({
        ok: false,
        reason: 'malformed',
      });
      if (header !== null) expect(checkSignature(header, BODY, 'whsec_one', AT).ok).toBe(false);
    }
  });
});
