import { describe, expect, test } from '@jest/globals';
import type { Reservation } from '../../../../functions/lib/http/handler-spec.js';
import { jobReservation } from '../../../../functions/lib/http/middleware/job-reservation.js';
import { FakeLogger, HTTP_REQUEST, NOW, PRINCIPAL, phase, requestOf, SERVICES } from './support/pipeline.js';

const state = () => ({
  principal: PRINCIPAL,
  httpRequest: HTTP_REQUEST,
  input: { emails: ['a@x.example'] },
  charge: { units: 1, at: NOW },
});

describe("a route's reserve/release hook (jobs-create)", () => {
  test('a hold marks the charge admission is about to make, in the month of the charge', async () => {
    const seen: unknown[] = [];
    const request = requestOf<{ emails: string[] }, string>(state());
    const reserve = async (
      _input: unknown,
      ctx: { units: number; month: string },
    ): Promise<Reservation<string>> => {
      seen.push(ctx);
      return { hold: 'job-1', state: 'pending', release: async () => undefined };
    };

    await phase(jobReservation(reserve, { logger: new FakeLogger(), services: SERVICES }), 'before', request);

    expect(seen).toEqual([expect.objectContaining({ units: 1, month: '2026-11', now: NOW })]);
    expect(request.context.charge).toEqual({ units: 1, at: NOW, hold: 'job-1' });
  });

  test('a replay charges nothing', async () => {
    const request = requestOf<{ emails: string[] }, string>(state());

    await phase(
      jobReservation(async () => ({ replay: { status: 202, json: {} } }), {
        logger: new FakeLogger(),
        services: SERVICES,
      }),
      'before',
      request,
    );

    expect(request.context.charge).toEqual({ units: 0, at: NOW });
  });

  test('a failure after the reservation releases it; a failed release is logged, not thrown', async () => {
    const logger = new FakeLogger();
    let released = 0;
    const request = requestOf<unknown, string>({
      reservation: {
        hold: 'job-1',
        state: 'pending',
        release: async () => {
          released += 1;
          throw new Error('ddb down');
        },
      },
    });
    request.error = new Error('boom');

    await phase(
      jobReservation<unknown, string>(async () => ({ replay: { status: 204 } }), {
        logger,
        services: SERVICES,
      }),
      'onError',
      request,
    );

    expect(released).toBe(1);
    expect(logger.errors.map((e) => e.message)).toEqual(['release failed']);
  });
});
