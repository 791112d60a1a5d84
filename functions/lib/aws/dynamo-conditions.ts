import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** Runs a conditional write: false when its condition failed. */
export async function conditional(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * `#status IN (...)` over the given statuses, with its names and values (prefix keeps the value
 * names of two lists in one expression apart).
 */
export function statusIn(
  statuses: readonly string[],
  prefix = 's',
): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const values = Object.fromEntries(statuses.map((s, i) => [`:${prefix}${i}`, s]));
  return {
    expression: `#status IN (${Object.keys(values).join(', ')})`,
    names: { '#status': 'status' },
    values,
  };
}
