// What a call costs: the usage kinds (meters) counted per account and month, and the billing rule
// a route is charged by. The route table (functions/routes.ts) names a rule per route; admission,
// the usage history, the job charges and the metrics count by meter.

/** Usage kinds recorded per account and month; they all count against the one monthly cap. */
export const METERS = ['geo', 'lookup', 'email', 'signup', 'risk'] as const;
export type Meter = (typeof METERS)[number];

/** What a call costs against the monthly cap (docs/api.md: Endpoints, the "Billing" column). */
export type Billing =
  | { per: 'none' }
  | { per: 'call'; meter: Meter }
  /** One unit per element of `field` in the validated input; duplicates billed again. */
  | { per: 'item'; meter: Meter; field: string }
  /** One unit per distinct (exact-match) element of `field` in the validated input. */
  | { per: 'distinct'; meter: Meter; field: string };
