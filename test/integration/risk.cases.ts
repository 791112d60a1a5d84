import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, baselineStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { TravelRiskResultSchema } from '../../functions/lib/risk/schema.js';
import { checkTravel, type Location } from '../../functions/lib/risk/travel.js';
import { baselineKey } from '../../functions/lib/risk/user-id.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';

// POST /v1/risk/check and DELETE /v1/risk/baseline on the local stack. Locations come from the
// pinned DB-IP Lite data; the first test pins what it says about the addresses used. Time is the
// test stack's clock, which the in-process handlers read on every call. It stands still here and
// moves only when a test moves it, always forward (the per-minute rate window refuses a clock that
// goes back): elapsed times are exact whatever the load.

const LONDON = '212.58.244.20'; // BBC, London GB
const SLOUGH = '46.101.0.1'; // Slough GB, ~35 km west of London
const PARIS = '212.27.48.10'; // Free SAS, Paris FR
const NEW_YORK = '104.131.0.1'; // West New York (NJ) US, across the Hudson from Manhattan
const MOUNTAIN_VIEW = '8.8.8.8'; // Mountain View (CA) US
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let stack: TestStack;

describe('risk', () => {
  beforeAll(async () => {
    stack = await startTestStack();
    clock.freeze(clock.now());
  });
  afterAll(async () => {
    clock.thaw();
    await stack.close();
  });

  /** Moves the service clock `ms` further ahead (for the calls that follow). */
  function clockAhead(ms: number): void {
    clock.advance(ms);
  }

  const newUser = () => `user-${randomUUID()}`;

  const risk = (body: unknown, headers = stack.secret()) =>
    stack.call('POST', '/v1/risk/check', { headers, body });

  async function travel(body: unknown, headers = stack.secret()) {
    const res = await risk(body, headers);
    expect(res.status).toBe(200);
    return TravelRiskResultSchema.parse(await res.json());
  }

  async function errorCode(res: Response): Promise<string> {
    return ((await res.json()) as { error: string }).error;
  }

  describe('the addresses used here', () => {
    test('DB-IP places them where the travel tests assume', async () => {
      const expected: [string, string, number, number][] = [
        [LONDON, 'GB', 51.5, -0.13],
        [SLOUGH, 'GB', 51.52, -0.63],
        [PARIS, 'FR', 48.86, 2.35],
        [NEW_YORK, 'US', 40.79, -74.01],
        [MOUNTAIN_VIEW, 'US', 37.42, -122.08],
      ];
      for (const [ip, country, latitude, longitude] of expected) {
        const res = await stack.call('GET', `/v1/lookup/${ip}`, { headers: stack.secret() });
        const body = (await res.json()) as { country: string; latitude: number; longitude: number };
        expect(body.country).toBe(country);
        expect(body.latitude).toBeCloseTo(latitude, 1);
        expect(body.longitude).toBeCloseTo(longitude, 1);
      }
    });
  });

  describe('POST /v1/risk/check', () => {
    test("a user's first-ever check: nulls, low risk, the current location", async () => {
      const body = await travel({ userId: newUser(), ip: LONDON });
      expect(body).toEqual({
        risk: 'low',
        impossibleTravel: false,
        distanceKm: null,
        impliedSpeedKmh: null,
        elapsedSeconds: null,
        previousLocation: null,
        currentLocation: { country: 'GB', latitude: expect.any(Number), longitude: expect.any(Number) },
        effectiveDistanceKm: null,
        accuracyRadiusKm: { previous: null, current: null },
        settings: { maxSpeedKmh: 1000, minDistanceKm: 200, minSeconds: 0 },
      });
    });

    test('London then New York ten minutes later is impossible travel: high', async () => {
      const userId = newUser();
      const first = await travel({ userId, ip: LONDON });
      clockAhead(10 * MINUTE);
      const body = await travel({ userId, ip: NEW_YORK });
      expect(body).toMatchObject({
        risk: 'high',
        impossibleTravel: true,
        currentLocation: { country: 'US' },
      });
      expect(body.elapsedSeconds).toBe(600);
      expect(body.distanceKm).toBeGreaterThan(5500);
      expect(body.impliedSpeedKmh).toBeGreaterThan(30_000);
      expect(body.previousLocation).toEqual({
        ...first.currentLocation,
        observedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    });

    test('London then Paris five hours later is possible travel; the country change makes it medium', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      clockAhead(5 * HOUR);
      const body = await travel({ userId, ip: PARIS });
      expect(body).toMatchObject({
        risk: 'medium',
        impossibleTravel: false,
        currentLocation: { country: 'FR' },
      });
      expect(body.distanceKm).toBeGreaterThan(330);
      expect(body.distanceKm).toBeLessThan(360);
    });

    test('nearby cities do not trip it: London then Slough a minute later is low', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      clockAhead(MINUTE);
      const body = await travel({ userId, ip: SLOUGH });
      expect(body.distanceKm).toBeLessThan(60);
      expect(body).toMatchObject({ risk: 'low', impossibleTravel: false });
    });

    test('a fast but possible trip in one country is medium: New York then Mountain View six hours later', async () => {
      const userId = newUser();
      await travel({ userId, ip: NEW_YORK });
      clockAhead(6 * HOUR);
      const body = await travel({ userId, ip: MOUNTAIN_VIEW });
      expect(body.impliedSpeedKmh).toBeGreaterThan(500);
      expect(body.impliedSpeedKmh).toBeLessThan(1000);
      expect(body).toMatchObject({ risk: 'medium', impossibleTravel: false });
    });

    test('the same place an hour later is low', async () => {
      const userId = newUser();
      await travel({ userId, ip: PARIS });
      clockAhead(HOUR);
      const body = await travel({ userId, ip: PARIS });
      expect(body).toMatchObject({ risk: 'low', impossibleTravel: false, distanceKm: 0, impliedSpeedKmh: 0 });
    });

    test('zero elapsed time does not divide by zero: London then New York at once is high', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      const body = await travel({ userId, ip: NEW_YORK });
      expect(body).toMatchObject({ risk: 'high', impossibleTravel: true, elapsedSeconds: 0 });
      expect(Number.isFinite(body.impliedSpeedKmh)).toBe(true);
    });

    test('commit false is speculative: it never writes, on a first check or later', async () => {
      const userId = newUser();
      expect((await travel({ userId, ip: LONDON, commit: false })).previousLocation).toBeNull();
      expect((await travel({ userId, ip: LONDON, commit: false })).previousLocation).toBeNull();
      await travel({ userId, ip: LONDON });
      clockAhead(10 * MINUTE);
      const speculative = await travel({ userId, ip: NEW_YORK, commit: false });
      expect(speculative.risk).toBe('high');
      const again = await travel({ userId, ip: PARIS, commit: false });
      expect(again.previousLocation?.country).toBe('GB'); // still London, not New York
    });

    test('each committed check moves the baseline to the current location and time', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      clockAhead(5 * HOUR);
      await travel({ userId, ip: PARIS });
      clockAhead(10 * MINUTE);
      const body = await travel({ userId, ip: NEW_YORK });
      expect(body.previousLocation?.country).toBe('FR');
      expect(body.elapsedSeconds).toBe(600);
    });

    test('two concurrent committed checks for one user leave the newer observation', async () => {
      const userId = newUser();
      const key = baselineKey(process.env.USER_ID_HMAC_SECRET!, stack.dev.accountId, userId);
      const started = stack.services.now().toISOString();
      const [a, b] = await Promise.all([travel({ userId, ip: LONDON }), travel({ userId, ip: NEW_YORK })]);
      const stored = await baselineStore(stack.services).get(key);
      expect([a.currentLocation.country, b.currentLocation.country]).toContain(stored?.country);
      expect(stored!.observedAt >= started).toBe(true);
      // The rule itself, with the two observations' times fixed: the older never overwrites the newer.
      const older = new Date(stack.services.now().getTime() + 1000);
      const newer = new Date(stack.services.now().getTime() + 2000);
      const at = (current: Location, time: Date) => ({ key, current, now: time, commit: true });
      const london: Location = { country: 'GB', latitude: 51.5, longitude: -0.13, accuracyRadiusKm: null };
      const newYork: Location = { country: 'US', latitude: 40.79, longitude: -74.01, accuracyRadiusKm: null };
      for (let i = 0; i < 5; i++) {
        await baselineStore(stack.services).delete(key);
        const calls = [
          checkTravel(baselineStore(stack.services), at(london, older)),
          checkTravel(baselineStore(stack.services), at(newYork, newer)),
        ];
        if (i % 2) calls.reverse();
        await Promise.all(calls);
        expect(await baselineStore(stack.services).get(key)).toEqual({
          ...newYork,
          observedAt: newer.toISOString(),
        });
      }
      // And in sequence, newer first: the late, older write is refused.
      await baselineStore(stack.services).delete(key);
      await checkTravel(baselineStore(stack.services), at(newYork, newer));
      await checkTravel(baselineStore(stack.services), at(london, older));
      expect((await baselineStore(stack.services).get(key))?.country).toBe('US');
    });

    test('after DELETE /v1/risk/baseline the next check is first-ever', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      const del = await stack.call('DELETE', '/v1/risk/baseline', {
        headers: stack.secret(),
        body: { userId },
      });
      expect(del.status).toBe(204);
      const body = await travel({ userId, ip: NEW_YORK });
      expect(body).toMatchObject({ previousLocation: null, distanceKm: null, risk: 'low' });
    });

    test('baselines are per account: the same userId in another account starts fresh', async () => {
      const userId = newUser();
      await travel({ userId, ip: LONDON });
      const other = await accountStore(stack.services).createAccount('business', {});
      const { key } = await accountStore(stack.services).createKey(other.accountId, 'secret', []);
      const body = await travel({ userId, ip: NEW_YORK }, { Authorization: `Bearer ${key}` });
      expect(body.previousLocation).toBeNull();
      // ... and the first account's baseline is untouched.
      clockAhead(10 * MINUTE);
      expect((await travel({ userId, ip: NEW_YORK })).risk).toBe('high');
    });

    test('422 location_unavailable when the IP has no location; not charged', async () => {
      const month = monthKey(stack.services.now());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.risk ?? 0;
      for (const ip of ['192.168.1.1', '10.0.0.1', '2001:db8::1']) {
        const res = await risk({ userId: newUser(), ip });
        expect([res.status, await errorCode(res)]).toEqual([422, 'location_unavailable']);
      }
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.risk ?? 0).toBe(
        before,
      );
      await travel({ userId: newUser(), ip: LONDON });
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.risk).toBe(
        before + 1,
      );
    });

    test('DELETE /v1/risk/baseline 400s: invalid_user_id for the userId rules, missing_field and invalid_field for the body', async () => {
      const cases: [unknown, string][] = [
        [{ userId: '' }, 'invalid_user_id'],
        [{ userId: 'x'.repeat(257) }, 'invalid_user_id'],
        [{}, 'missing_field'],
        [{ userId: 42 }, 'invalid_field'],
        [['not', 'an', 'object'], 'invalid_field'],
        [null, 'invalid_field'],
      ];
      for (const [body, code] of cases) {
        const res = await stack.call('DELETE', '/v1/risk/baseline', {
          headers: { ...stack.secret(), 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect([res.status, await errorCode(res), body]).toEqual([400, code, body]);
      }
    });

    test('400s: invalid_ip, invalid_user_id, missing_field, invalid_field', async () => {
      const cases: [unknown, string][] = [
        [{ userId: 'u1', ip: '999.1.1.1' }, 'invalid_ip'],
        [{ userId: 'u1', ip: 'london' }, 'invalid_ip'],
        [{ userId: '', ip: LONDON }, 'invalid_user_id'],
        [{ userId: 'x'.repeat(257), ip: LONDON }, 'invalid_user_id'],
        [{ ip: LONDON }, 'missing_field'],
        [{ userId: 'u1' }, 'missing_field'],
        [{ userId: 42, ip: LONDON }, 'invalid_field'],
        [{ userId: 'u1', ip: LONDON, commit: 'no' }, 'invalid_field'],
        [['not', 'an', 'object'], 'invalid_field'],
      ];
      for (const [body, code] of cases) {
        const res = await risk(body);
        expect([res.status, await errorCode(res), body]).toEqual([400, code, body]);
      }
      // 256 characters is the longest userId accepted.
      expect((await risk({ userId: 'x'.repeat(256), ip: LONDON, commit: false })).status).toBe(200);
    });

    test('two different user ids never share a baseline: a lone surrogate is refused, bytes that are not UTF-8 too', async () => {
      // Each would reach the keyed hash as U+FFFD and read the baseline of the user literally named so.
      expect((await risk({ userId: '\ufffd', ip: LONDON })).status).toBe(200);
      for (const userId of ['\ud800', '\udfff', 'a\udc00b']) {
        const res = await risk({ userId, ip: MOUNTAIN_VIEW });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          error: 'invalid_user_id',
          message: expect.stringContaining('lone surrogate'),
        });
      }
      const raw = await stack.call('POST', '/v1/risk/check', {
        headers: { ...stack.secret(), 'Content-Type': 'application/json' },
        body: Buffer.concat([
          Buffer.from('{"userId":"'),
          Buffer.from([0xff, 0xfe]),
          Buffer.from(`","ip":"${MOUNTAIN_VIEW}"}`),
        ]),
      });
      expect([raw.status, await raw.json()]).toEqual([
        400,
        { error: 'invalid_json', message: 'The body is not UTF-8 (line 1).' },
      ]);
      // The user literally named U+FFFD is where it was, untouched by the refused calls.
      const again = await risk({ userId: '\ufffd', ip: LONDON, commit: false });
      expect(await again.json()).toMatchObject({ risk: 'low' });
    });
  });
});
