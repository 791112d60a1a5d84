import { Metrics } from '@aws-lambda-powertools/metrics';
import { describe, expect, test } from '@jest/globals';
import { usageEvents } from '../../../../functions/lib/http/middleware/usage-events.js';
import { addUsageEvent } from '../../../../functions/lib/http/usage-event-metric.js';
import { FakeMetrics, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

describe('usage events (docs/api.md: Limits, "Usage events")', () => {
  test('a successful billed call emits its units on its meter, for its account', async () => {
    const metrics = new FakeMetrics();
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 3, month: '2026-11', monthBefore: 0, monthAfter: 3 },
    });

    await phase(usageEvents({ meter: 'lookup', metrics }), 'after', request);

    expect(metrics.events).toEqual([{ accountId: 'acct_1', meter: 'lookup', units: 3 }]);
  });

  test('an unbilled route emits none', async () => {
    const metrics = new FakeMetrics();
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 0, month: '2026-11', monthBefore: 0, monthAfter: 0 },
    });

    await phase(usageEvents({ meter: null, metrics }), 'after', request);

    expect(metrics.events).toEqual([]);
  });
});

describe('usage events as EMF (functions/lib/http/usage-event-metric.ts)', () => {
  test('one metric per meter: the account is a property of the line, never a dimension', () => {
    const emf = new Metrics({ namespace: 'netintel', serviceName: 'netintel' });
    addUsageEvent(emf, 'acct_1', 'lookup', 100);
    const line = emf.serializeMetrics() as unknown as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'meter']]);
    expect(line._aws.CloudWatchMetrics[0]!.Metrics.map((m) => m.Name)).toEqual(['usageEvents']);
    expect(line).toMatchObject({ meter: 'lookup', account: 'acct_1', usageEvents: 100 });
  });
});
