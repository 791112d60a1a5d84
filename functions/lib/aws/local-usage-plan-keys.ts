import type { UsagePlanKey, UsagePlanKeys } from '../accounts/usage-plan-keys.js';

/**
 * Locally there is no API Gateway: the local gateway applies no usage plans, so an account needs
 * no key of its own (the exact per-account limits are the application's, as in AWS).
 */
export class LocalUsagePlanKeys implements UsagePlanKeys {
  async createFor(): Promise<UsagePlanKey | undefined> {
    return undefined;
  }

  async remove(): Promise<void> {}
}
