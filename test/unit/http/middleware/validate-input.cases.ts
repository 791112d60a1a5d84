import { describe, expect, test } from '@jest/globals';
import { HttpError, ValidationError } from '../../../../functions/lib/http/errors.js';
import { validateInput } from '../../../../functions/lib/http/middleware/validate-input.js';
import { JobInputError } from '../../../../functions/lib/jobs/job-errors.js';
import { HTTP_REQUEST, PRINCIPAL, phase, requestOf, SERVICES, thrownBy } from './support/pipeline.js';

const state = () => ({ httpRequest: HTTP_REQUEST, principal: PRINCIPAL });

describe("the route's validation", () => {
  test('its input is put on the context for the next steps', async () => {
    const request = requestOf<{ ip: string }>(state());

    await phase(
      validateInput(() => ({ ip: '1.1.1.1' }), SERVICES),
      'before',
      request,
    );

    expect(request.context.input).toEqual({ ip: '1.1.1.1' });
    expect(request.context.inputRefused).toBeUndefined();
  });

  test('a refused request keeps its 4xx and is marked to count against the minute', async () => {
    const request = requestOf(state());
    const refusal = new ValidationError('invalid_ip', 'bad');

    const err = await thrownBy(() =>
      phase(
        validateInput<unknown, unknown>(() => {
          throw refusal;
        }, SERVICES),
        'before',
        request,
      ),
    );

    expect(err).toBe(refusal);
    expect(request.context.inputRefused).toBe(true);
  });

  test('a 5xx from validation is not a refused request', async () => {
    const request = requestOf(state());

    await thrownBy(() =>
      phase(
        validateInput<unknown, unknown>(() => {
          throw new HttpError('job_storage_unavailable', 'down');
        }, SERVICES),
        'before',
        request,
      ),
    );

    expect(request.context.inputRefused).toBeUndefined();
  });

  test("a domain refusal from the input is answered as the API's error and counts against the minute", async () => {
    const request = requestOf(state());

    const err = await thrownBy(() =>
      phase(
        validateInput<unknown, unknown>(() => {
          throw new JobInputError('empty_job', 'The list has no addresses.');
        }, SERVICES),
        'before',
        request,
      ),
    );

    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 400, code: 'empty_job', message: 'The list has no addresses.' });
    expect(request.context.inputRefused).toBe(true);
  });
});
