import { describe, expect, test } from '@jest/globals';
import { responseHeaders } from '../../../../functions/lib/http/middleware/response-headers.js';
import { minuteWindow } from '../../../../functions/lib/limits/windows.js';
import { FakeLogger, NOW, phase, requestOf } from './support/pipeline.js';

const W = minuteWindow(NOW);
const json = () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });

describe('every answer names its request and, once counted, the minute left', () => {
  test("API Gateway's request id is X-Request-Id and goes on every log line of the call", async () => {
    const logger = new FakeLogger();
    const request = requestOf();
    request.response = json();

    await phase(responseHeaders({ logger }), 'before', request);
    await phase(responseHeaders({ logger }), 'after', request);

    expect(request.response.headers).toMatchObject({ 'X-Request-Id': 'req-1' });
    expect(logger.keys).toEqual([{ correlation_id: 'req-1' }]);
  });

  test('a counted call carries X-RateLimit-Limit, -Remaining and -Reset (epoch seconds at the end of its minute)', async () => {
    const request = requestOf({ minute: { limit: 60, used: 4, window: W } });
    request.response = json();

    await phase(responseHeaders({ logger: new FakeLogger() }), 'after', request);

    expect(request.response.headers).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '56',
      'X-RateLimit-Reset': String(Math.floor(NOW.getTime() / 60_000) * 60 + 60),
    });
  });

  test('an error answer carries them too; a call never counted carries none', async () => {
    const counted = requestOf({ minute: { limit: 60, used: 60, window: W } });
    counted.response = { statusCode: 429, headers: { 'Retry-After': '40' }, body: '{}' };
    const uncounted = requestOf();
    uncounted.response = { statusCode: 401, headers: {}, body: '{}' };

    await phase(responseHeaders({ logger: new FakeLogger() }), 'onError', counted);
    await phase(responseHeaders({ logger: new FakeLogger() }), 'onError', uncounted);

    expect(counted.response.headers).toMatchObject({ 'X-RateLimit-Remaining': '0', 'Retry-After': '40' });
    expect(Object.keys(uncounted.response.headers ?? {}).sort()).toEqual(['Cache-Control', 'X-Request-Id']);
  });

  test('every answer is no-store unless its route says otherwise (in any case of the name)', async () => {
    const plain = requestOf();
    plain.response = { statusCode: 200, headers: {}, body: '{}' };
    const own = requestOf();
    own.response = { statusCode: 200, headers: { 'cache-control': 'public, max-age=300' }, body: '{}' };
    for (const request of [plain, own])
      await phase(responseHeaders({ logger: new FakeLogger() }), 'after', request);
    expect(plain.response.headers).toMatchObject({ 'Cache-Control': 'no-store' });
    expect(own.response.headers).toEqual(expect.objectContaining({ 'cache-control': 'public, max-age=300' }));
    expect(own.response.headers).not.toHaveProperty('Cache-Control');
  });
});
