import * as z from '../zod.js';

// The default plans, in one place. Numbers are ours to choose; docs/api.md lists them (Limits, billing
// and usage notices).
// An account copies its plan's limits at creation and may override each one.
export const PlanSchema = z.object({
  id: z.string(),
  perMinute: z.number().check(z.int(), z.positive()),
  monthlyCap: z.number().check(z.int(), z.positive()),
  includesSecurity: z.boolean(),
  customHostname: z.boolean(),
});
export type Plan = z.infer<typeof PlanSchema>;

export const PLANS: readonly Plan[] = [
  { id: 'free', perMinute: 60, monthlyCap: 10_000, includesSecurity: false, customHostname: false },
  { id: 'starter', perMinute: 300, monthlyCap: 250_000, includesSecurity: false, customHostname: false },
  { id: 'pro', perMinute: 1_200, monthlyCap: 2_000_000, includesSecurity: true, customHostname: true },
  { id: 'business', perMinute: 6_000, monthlyCap: 20_000_000, includesSecurity: true, customHostname: true },
];

export function planById(id: string): Plan | undefined {
  return PLANS.find((p) => p.id === id);
}
