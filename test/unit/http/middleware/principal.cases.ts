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
});
