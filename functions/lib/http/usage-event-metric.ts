import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Meter } from '../billing/meters.js';

// Usage events (docs/api.md: Limits, billing and usage notices) as CloudWatch EMF, one line per billed
// call. One metric per meter and never one per account: CloudWatch keeps each combination of
// dimension values as a custom metric of its own ($0.30 a month at list price), so an `account`
// dimension would be 50,000 metrics for 10,000 accounts before a single call. The account rides on
// the line as a plain property: the Contributor Insights rule of infra/constructs/observability.ts
// ranks accounts from these lines, and an account's own history is the usage table's
// (GET /v1/usage, the dashboard).

export const USAGE_EVENT = {
  /** Units billed; dimensions `service` (Powertools' default) and `meter`. */
  metric: 'usageEvents',
  meterDimension: 'meter',
  /** A property of the line, not a dimension. */
  accountProperty: 'account',
} as const;

/** Adds one billed call's usage event to `emf`; the caller publishes it. */
export function addUsageEvent(emf: Metrics, accountId: string, meter: Meter, units: number): void {
  emf.addDimension(USAGE_EVENT.meterDimension, meter);
  emf.addMetadata(USAGE_EVENT.accountProperty, accountId);
  emf.addMetric(USAGE_EVENT.metric, MetricUnit.Count, units);
}
