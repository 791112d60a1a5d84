import { describe, expect, test } from '@jest/globals';
import { type HttpError, ValidationError } from '../../../../functions/lib/http/errors.js';
import { admission } from '../../../../functions/lib/http/middleware/admission.js';
import { minuteWindow } from '../../../../functions/lib/limits/windows.js';
import { MemoryUsageCounter } from '../../limits/support/memory-counter.js';
import { FakeLogger, fixedClock, NOW, PRINCIPAL, phase, requestOf, thrownBy } from './support/pipeline.js';

const W = minuteWindow(NOW);
const options = (counter: MemoryUsageCounter, logger = new FakeLogger()) => ({
  meter: 'lookup' as const,
  counter,
  clock: fixedClock,
  logger,
});

describe('admission (docs/api.md: Limits)', () => {
  test('an admitted call is counted in the minute and the month, and what it charged is on the context', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 3, monthCount: 40 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 2, at: NOW } });

    await phase(admission(options(counter)), 'before', request);

    expect(request.context.admitted).toEqual({ units: 2, month: '2026-11', monthBefore: 40, monthAfter: 42 });
    expect(counter.state).toMatchObject({ minuteCount: 4, monthCount: 42 });
  });

  test('what the counter showed of the minute goes on the context for X-RateLimit-*', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 3, monthCount: 40 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 1, at: NOW } });

    await phase(admission(options(counter)), 'before', request);

    expect(request.context.minute).toEqual({ limit: 60, used: 4, window: W });
  });

  test('a rate refusal leaves a full minute on the context', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 60, monthCount: 0 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 1, at: NOW } });

    await thrownBy(() => phase(admission(options(counter)), 'before', request));

    expect(request.context.minute).toEqual({ limit: 60, used: 60, window: W });
  });

  test('a monthly refusal says how much remains and when the month resets, in the body and a header', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 1, monthCount: 97 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 5, at: NOW } });

    const err = await thrownBy(() => phase(admission(options(counter)), 'before', request));

    expect(err).toMatchObject({
      code: 'monthly_limit_exceeded',
      message:
        'This request needs 5 requests; 3 requests remain of the monthly cap until it resets at 2026-12-01T00:00:00Z. Nothing was charged.',
      headers: { 'X-Monthly-Remaining': '3' },
    });
    expect((err as HttpError).toBody()).toMatchObject({ error: 'monthly_limit_exceeded', remaining: 3 });
  });

  test('a full minute is 429 rate_limit_exceeded with Retry-After until the minute ends', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 60, monthCount: 0 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 1, at: NOW } });

    const err = await thrownBy(() => phase(admission(options(counter)), 'before', request));

    expect(err).toMatchObject({ status: 429, code: 'rate_limit_exceeded', headers: { 'Retry-After': '40' } });
  });

  test('a full month is 429 monthly_limit_exceeded', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 1, monthCount: 100 });
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 1, at: NOW } });

    const err = await thrownBy(() => phase(admission(options(counter)), 'before', request));

    expect(err).toMatchObject({
      status: 429,
      code: 'monthly_limit_exceeded',
      message: 'Monthly request cap reached: no requests remain until it resets at 2026-12-01T00:00:00Z.',
    });
    expect((err as HttpError).toBody()).toMatchObject({ remaining: 0 });
  });

  test('a call refused by validation counts against the minute, not the month', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 3, monthCount: 40 });
    const request = requestOf({ principal: PRINCIPAL, inputRefused: true });
    request.error = new ValidationError('invalid_ip', 'bad');

    await phase(admission(options(counter)), 'onError', request);

    expect(counter.state).toMatchObject({ minuteCount: 4, monthCount: 40 });
    expect(request.error).toMatchObject({ code: 'invalid_ip' });
  });

  test('a refused call over a full minute is answered 429 instead of its validation error', async () => {
    const counter = new MemoryUsageCounter({ window: W, minuteCount: 60, monthCount: 40 });
    const request = requestOf({ principal: PRINCIPAL, inputRefused: true });
    request.error = new ValidationError('invalid_ip', 'bad');

    await phase(admission(options(counter)), 'onError', request);

    expect(request.error).toMatchObject({ code: 'rate_limit_exceeded', headers: { 'Retry-After': '40' } });
  });

  test('a counter failure while counting a refused call leaves the validation error, and is logged', async () => {
    const counter = new MemoryUsageCounter();
    counter.countInWindow = async () => {
      throw new Error('ddb down');
    };
    const logger = new FakeLogger();
    const request = requestOf({ principal: PRINCIPAL, inputRefused: true });
    request.error = new ValidationError('invalid_ip', 'bad');

    await phase(admission(options(counter, logger)), 'onError', request);

    expect(request.error).toMatchObject({ code: 'invalid_ip' });
    expect(logger.errors.map((e) => e.message)).toEqual(['counting a refused call failed']);
  });

  test('the call that opens a minute records the closed one on its day; a failed record is logged, the call admitted', async () => {
    const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 9, monthCount: 40 });
    counter.snapshotDay = async () => {
      throw new Error('ddb down');
    };
    const logger = new FakeLogger();
    const request = requestOf({ principal: PRINCIPAL, charge: { units: 1, at: NOW } });

    await phase(admission(options(counter, logger)), 'before', request);

    expect(request.context.admitted).toEqual({ units: 1, month: '2026-11', monthBefore: 40, monthAfter: 41 });
    expect(request.context.minute).toEqual({ limit: 60, used: 1, window: W });
    expect(logger.errors.map((e) => e.message)).toEqual([
      'usage history: the closed minute was not recorded on its day',
    ]);
  });
});
