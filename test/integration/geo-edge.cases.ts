import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { toAuthorizerContext } from '../../functions/lib/http/principal.js';
import { GeoResultSchema } from '../../functions/lib/ip/schema.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// The geo function as API Gateway invokes it behind our CloudFront. The local gateway routes only
// the exact path, so these events are built by hand: the one spelling the distribution's geo
// behaviour matches, and the others API Gateway may still route to the geo resource, which reach
// it through the default behaviour with the origin secret and whatever headers the viewer sent.

const ORIGIN_SECRET = 'test-origin-secret-geo-edge';
let stack: TestStack;
let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

describe('geo-edge', () => {
  beforeAll(async () => {
    process.env.ORIGIN_SECRET = ORIGIN_SECRET;
    stack = await startTestStack();
    // The route's handler on this stack's services (their ORIGIN_SECRET is this file's).
    const geo = await import('../../functions/geo/handler.js');
    handler = geo.handler.build(stack.services) as typeof handler;
  });
  afterAll(async () => {
    await stack.close();
    delete process.env.ORIGIN_SECRET;
  });

  const context = {
    functionName: 'netintel-geo',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:netintel-geo',
    memoryLimitInMB: '512',
    awsRequestId: 'geo-edge-test',
    getRemainingTimeInMillis: () => 10_000,
  } as unknown as Context;

  function event(path: string, headers: Record<string, string>): APIGatewayProxyEvent {
    return {
      resource: '/v1/geo',
      path,
      httpMethod: 'GET',
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        authorizer: toAuthorizerContext({
          accountId: stack.dev.accountId,
          keyId: 'key_geo_edge',
          keyType: 'publishable',
          plan: 'pro',
          perMinute: 1200,
          monthlyCap: 2_000_000,
          includesSecurity: true,
          allowedOrigin: 'https://shop.example.com',
        }),
        identity: { sourceIp: '130.176.0.1' },
        requestId: 'geo-edge-test',
      } as unknown as APIGatewayProxyEvent['requestContext'],
    };
  }

  /** What the default behaviour forwards: the origin secret and every header the viewer sent. */
  const viaCloudFront = {
    'X-Origin-Verify': ORIGIN_SECRET,
    Origin: 'https://shop.example.com',
    'CloudFront-Viewer-Address': '193.99.144.80:51234',
    'CloudFront-Viewer-Country': 'FR',
    'CloudFront-Viewer-City': 'Paris',
    'CloudFront-Viewer-Latitude': '48.86',
    'CloudFront-Viewer-Longitude': '2.34',
  };

  describe('GET /v1/geo behind CloudFront', () => {
    test('on exactly /v1/geo the CloudFront-Viewer-* headers give the location', async () => {
      const res = await handler(event('/v1/geo', viaCloudFront), context);
      expect(res.statusCode).toBe(200);
      expect(GeoResultSchema.parse(JSON.parse(res.body))).toMatchObject({
        ip: '193.99.144.80',
        country: 'FR',
        city: 'Paris',
      });
    });

    test('another spelling of the path is refused 404, never located from the headers it carries', async () => {
      for (const path of ['/v1/geo/', '//v1/geo', '/v1//geo']) {
        const res = await handler(event(path, viaCloudFront), context);
        expect(res.statusCode).toBe(404);
        expect(JSON.parse(res.body)).toMatchObject({ error: 'not_found' });
      }
    });
  });
});
