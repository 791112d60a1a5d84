import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { jobReservation } from '../../../../functions/lib/http/middleware/job-reservation.js';
import { anyErrorArb, FakeLogger, phase, requestOf, SERVICES } from './support/pipeline.js';

describe('job-reservation under arbitrary failures', () => {
  test('onError never throws, whatever failed and however the release fails', async () => {
    await fc.assert(
      fc.asyncProperty(anyErrorArb, fc.option(anyErrorArb), async (err, releaseFailure) => {
        const request = requestOf<unknown, null>({
          reservation: {
            hold: 'h',
            state: null,
            release: async () => {
              if (releaseFailure !== null) throw releaseFailure;
            },
          },
        });
        request.error = err as Error;

        await expect(
          phase(
            jobReservation<unknown, null>(async () => ({ replay: { status: 204 } }), {
              logger: new FakeLogger(),
              services: SERVICES,
            }),
            'onError',
            request,
          ),
        ).resolves.toBeUndefined();
      }),
    );
  });
});
