import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { principal } from '../../../../functions/lib/http/middleware/principal.js';
import { toAuthorizerContext } from '../../../../functions/lib/http/principal.js';
import {
  FakeLogger,
  isTyped,
  phase,
  principalArb,
  requestOf,
  thrownBy,
  withAuthorizer,
} from './support/pipeline.js';

const authorizerArb = fc.oneof(
  fc.anything(),
  fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
  principalArb.map(toAuthorizerContext),
);

describe('principal under arbitrary authorizer contexts', () => {
  test('either sets a principal or throws 401 invalid_api_key, nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(authorizerArb, async (authorizer) => {
        const request = requestOf({}, withAuthorizer(authorizer));

        const err = await thrownBy(() =>
          phase(principal({ route: 'geo', logger: new FakeLogger() }), 'before', request),
        );

        if (err === undefined) expect(request.context.principal).toBeDefined();
        else expect(isTyped(err) && err.code === 'invalid_api_key' && err.status === 401).toBe(true);
      }),
    );
  });

  test('every principal the authorizer can express survives the string context', async () => {
    await fc.assert(
      fc.asyncProperty(principalArb, async (p) => {
        const request = requestOf({}, withAuthorizer(toAuthorizerContext(p)));

        await phase(principal({ route: 'geo', logger: new FakeLogger() }), 'before', request);

        expect(request.context.principal).toEqual(p);
      }),
    );
  });
});
