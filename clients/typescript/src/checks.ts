// Arguments checked where they are given: a TypeError or RangeError before any request.

/** A path parameter: a non-empty string (an empty one would name another route), else a TypeError. */
export function nonEmpty(value: unknown, what: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw new TypeError(
    `${what} takes a non-empty string, not ${value === '' ? 'an empty one' : value === null ? 'null' : typeof value}`,
  );
}

/**
 * A value the API judges, such as an address: any string (an empty one is the API's to answer, as
 * an invalid address is a result), else a TypeError before any request.
 */
export function aString(value: unknown, what: string): string {
  if (typeof value === 'string') return value;
  throw new TypeError(`${what} takes a string, not ${value === null ? 'null' : typeof value}`);
}

export function wholeNumber(value: number, what: string, min: number): number {
  if (Number.isInteger(value) && value >= min) return value;
  throw new RangeError(`${what} must be a whole number from ${min} (got ${String(value)})`);
}
