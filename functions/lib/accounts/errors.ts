// The refusals of account controls (keys and the account's own rules), in a module of their own
// without dependencies: the one error registry (http/middleware/domain-errors.ts) loads them in every
// function, and the code that throws them is only in some.

/** Every slot is held by a live key (or by a create too recent to judge). */
export class LiveKeyLimitError extends Error {
  constructor(readonly max: number) {
    super(`An account has at most ${max} live keys: revoke one first.`);
    this.name = 'LiveKeyLimitError';
  }
}

/** A geofeed that is not applied: its refused rows by line (0: the feed as a whole). */
export class GeofeedRefusedError extends Error {
  constructor(
    readonly lines: readonly { line: number; reason: string }[],
    /** Problems beyond those listed. */
    readonly more: number,
  ) {
    const first = lines[0];
    super(
      `The geofeed was not applied: ${lines.length + more} problem(s)${
        first
          ? `, the first ${first.line > 0 ? `on line ${first.line}` : 'in the feed as a whole'}: ${first.reason}`
          : ''
      }${more > 0 ? ` (${more} more not listed)` : ''}.`,
    );
    this.name = 'GeofeedRefusedError';
  }
}

/** A geofeed over its size limit (ACCOUNT_GEOFEED_MAX_BYTES), refused before it is read. */
export class GeofeedTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`A geofeed is at most ${maxBytes} bytes.`);
    this.name = 'GeofeedTooLargeError';
  }
}

/** A key that does not exist, or not in this account (both read as unknown). */
export class UnknownKeyError extends Error {}

/** Other changes of the same account's rules won every try: nothing was applied. */
export class RulesConflictError extends Error {}

/**
 * A change of an account's rules whose If-Match no longer names the rules it replaces: another change
 * came first (docs/rules.md: Saving from two places at once). Nothing was applied.
 */
export class RulesChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RulesChangedError';
  }
}
