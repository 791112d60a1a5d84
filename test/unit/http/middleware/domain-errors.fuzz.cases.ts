import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ERROR_CODES, HttpError } from '../../../../functions/lib/http/errors.js';
import { domainErrors } from '../../../../functions/lib/http/middleware/domain-errors.js';
import {
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  JobAbandonedError,
  JobInputError,
} from '../../../../functions/lib/jobs/job-errors.js';
import { anyErrorArb, phase, requestOf } from './support/pipeline.js';

const domainErrorArb = fc.oneof(
  fc.constant(new IdempotencyKeyReusedError()),
  fc.integer({ min: 1, max: 10_000 }).map((s) => new IdempotencyKeyInProgressError(s)),
  fc.constant(new JobAbandonedError()),
  fc
    .tuple(
      fc.constantFrom(
        'body_too_large',
        'invalid_body',
        'invalid_json',
        'empty_job',
        'job_too_large' as const,
      ),
      fc.string(),
    )
    .map(([problem, message]) => new JobInputError(problem, message)),
);

describe('domain-errors under arbitrary errors', () => {
  test('never throws; a domain error becomes the typed error of its code and keeps its message, anything else stays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          domainErrorArb.map((err) => ({ err, domain: true })),
          anyErrorArb.map((err) => ({ err, domain: false })),
        ),
        async ({ err, domain }) => {
          const request = requestOf();
          request.error = err as Error;

          await phase(domainErrors(), 'onError', request);

          if (!domain) {
            expect(request.error).toBe(err);
            return;
          }
          const answer = request.error as unknown as HttpError;
          expect(answer).toBeInstanceOf(HttpError);
          expect(answer.status).toBe(ERROR_CODES[answer.code]);
          expect(answer.message).toBe((err as Error).message);
        },
      ),
    );
  });
});
