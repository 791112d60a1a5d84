// Test mode (docs/test-mode.md): an account's test keys (`ni_test_sec_…`, `ni_test_pub_…`) answer on
// every route with the live shapes, from fixed data instead of the live databases, DNS and RDAP.
// Everything a test call leaves behind (its counters, list jobs, risk baselines, webhook endpoints
// and events) is kept under the account's test partition: an account id of its own, which no live
// account id can be (live ids never hold `~`), so test data can never be read, counted or billed as
// live data, and every worker tells a test job from a live one by its account id alone.

/** Which data a key answers from: live (the default) or test. */
export type KeyMode = 'live' | 'test';

const TEST_SUFFIX = '~test';

/** The test partition of a live account. */
export function testPartitionOf(accountId: string): string {
  return isTestPartition(accountId) ? accountId : accountId + TEST_SUFFIX;
}

/** Whether an account id is a test partition (a test key's data). */
export function isTestPartition(accountId: string): boolean {
  return accountId.endsWith(TEST_SUFFIX);
}

/** The live account a partition belongs to (itself for a live account). */
export function liveAccountOf(accountId: string): string {
  return isTestPartition(accountId) ? accountId.slice(0, -TEST_SUFFIX.length) : accountId;
}
