import { describe, expect, test } from '@jest/globals';
import { HttpError } from '../../../../functions/lib/http/errors.js';
import { principal } from '../../../../functions/lib/http/middleware/principal.js';
import { toAuthorizerContext } from '../../../../functions/lib/http/principal.js';
import { FakeLogger, PRINCIPAL, phase, requestOf, thrownBy, withAuthorizer } from './support/pipeline.js';

describe('the caller is the one the authorizer established', () => {
  test("the authorizer's string context becomes the typed principal, and its account goes into the logs", async () => {
    const logger = new FakeLogger();
    const request = requestOf({}, withAuthorizer(toAuthorizerContext(PRINCIPAL)));

    await phase(principal({ route: 'geo', logger }), 'before', request);

    expect(request.context.principal).toEqual(PRINCIPAL);
    expect(logger.keys).toEqual([{ route: 'geo', accountId: 'acct_1' }]);
  });

  test('an invocation without an authorizer context is 401 invalid_api_key', async () => {
    const err = await thrownBy(() =>
      phase(
        principal({ route: 'geo', logger: new FakeLogger() }),
        'before',
        requestOf({}, withAuthorizer(undefined)),
      ),
    );

    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  test("a key the authorizer refused is answered 401 with the authorizer's reason, before anything is counted", async () => {
    const request = requestOf(
      {},
      withAuthorizer({
        errorCode: 'invalid_api_key',
        message: 'The API key is unknown or has been revoked.',
      }),
    );

    const err = await thrownBy(() =>
      phase(principal({ route: 'geo', logger: new FakeLogger() }), 'before', request),
    );

    expect(err).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      message: 'The API key is unknown or has been revoked.',
    });
    expect(request.context.principal).toBeUndefined();
  });

  test('a key the authorizer could not check in time (DynamoDB did not answer) is 503 service_unavailable with Retry-After', async () => {
    const request = requestOf(
      {},
      withAuthorizer({
        errorCode: 'service_unavailable',
        message: 'A service this call depends on did not answer in time; retry in 5 s.',
      }),
    );

    const err = await thrownBy(() =>
      phase(principal({ route: 'geo', logger: new FakeLogger() }), 'before', request),
    );

    expect(err).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '5' } });
    expect(request.context.principal).toBeUndefined();
  });

  test('a refusal context never passes for a caller, whatever else it carries', async () => {
    const request = requestOf(
      {},
      withAuthorizer({ ...toAuthorizerContext(PRINCIPAL), errorCode: 'invalid_api_key', message: 'refused' }),
    );

    const err = await thrownBy(() =>
      phase(principal({ route: 'geo', logger: new FakeLogger() }), 'before', request),
    );

    expect(err).toMatchObject({ status: 401, message: 'refused' });
  });
});
