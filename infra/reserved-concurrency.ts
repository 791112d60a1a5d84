// Reserved concurrency for the functions a browser or every request waits on (production readiness): the
// authorizer (it runs before every keyed request: API Gateway cannot cache its decisions, api.ts)
// and the two browser routes. A reservation is both a floor and a ceiling: nothing else in the
// account (a list job, another application) can take those executions, and the function never runs
// more than it holds.
//
// Off by default: Lambda keeps at least 100 executions of an account's quota unreserved, so a
// reservation fails `cdk deploy` in an account whose quota is at the minimum (new accounts can
// start at 10). `-c reservedConcurrency=true` reserves RESERVED_CONCURRENCY_DEFAULTS (200 in all:
// the account's quota must be at least 300); `-c reservedConcurrency=authorizer=150,geo=40` sets
// the numbers (functions not named get none).

/**
 * Default reservations. The authorizer: the stage's flood guard admits 500 requests/s (api.ts
 * STAGE_THROTTLE) and a warm authorizer answers in tens of milliseconds, so 100 leaves room for
 * cold starts in a burst. The browser routes: 50 each, which at 100-200 ms a call serves 250 to
 * 500 calls a second each.
 */
export const RESERVED_CONCURRENCY_DEFAULTS = {
  authorizer: 100,
  geo: 50,
  'email-validate': 50,
} as const;

export type ReservableFunction = keyof typeof RESERVED_CONCURRENCY_DEFAULTS;
export type ReservedConcurrency = Partial<Record<ReservableFunction, number>>;

/** Executions Lambda keeps unreserved in every account (the Lambda quotas page). */
export const UNRESERVED_MINIMUM = 100;

const NAMES = Object.keys(RESERVED_CONCURRENCY_DEFAULTS) as ReservableFunction[];

function isReservable(name: string): name is ReservableFunction {
  return (NAMES as string[]).includes(name);
}

/** What the setting accepts, for every message that refuses a value. */
const ACCEPTS = `it takes true, false or name=n,... with names ${NAMES.join(', ')}, e.g. authorizer=150,geo=40`;

function refuse(detail: string): never {
  throw new Error(`reservedConcurrency: ${detail} (${ACCEPTS})`);
}

/**
 * The most executions one function may reserve here: far above Lambda's default account quota
 * (1,000), and above what a raised quota reaches in practice; a larger number is a typo.
 */
const MAX_EXECUTIONS = 100_000;

function executions(name: string, value: unknown): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_EXECUTIONS) {
    refuse(`${name} needs a whole number from 1 to ${MAX_EXECUTIONS}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * The `reservedConcurrency` context (or stack prop) as reservations: absent, `false` -> none;
 * `true` -> the defaults (true and false in any case, as every flag: infra/context.ts);
 * `name=n,...` or `{name: n}` -> those. Anything else, an unknown function name or a number that is
 * not a positive integer is an error naming what it accepts, so a typo cannot silently reserve nothing.
 */
export function parseReservedConcurrency(value: unknown): ReservedConcurrency {
  const flag = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (flag === undefined || flag === null || flag === false || flag === 'false' || flag === '') return {};
  if (flag === true || flag === 'true') return { ...RESERVED_CONCURRENCY_DEFAULTS };
  let entries: [string, unknown][];
  if (typeof value === 'string') {
    entries = value.split(',').map((pair) => {
      const parts = pair.split('=').map((p) => p.trim());
      if (parts.length !== 2) refuse(`"${pair.trim()}" is neither true, false nor name=n`);
      return [parts[0]!, parts[1]];
    });
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    entries = Object.entries(value);
  } else {
    entries = [];
  }
  if (entries.length === 0) refuse(`got ${JSON.stringify(value)}`);
  const out: ReservedConcurrency = {};
  for (const [name, n] of entries) {
    if (!isReservable(name)) refuse(`"${name}" is not one of ${NAMES.join(', ')}`);
    if (name in out) refuse(`"${name}" is given twice`);
    out[name] = executions(name, n);
  }
  return out;
}

/** The account concurrency quota a deployment with these reservations needs. */
export function quotaNeeded(reserved: ReservedConcurrency): number {
  return Object.values(reserved).reduce((sum, n) => sum + n, 0) + UNRESERVED_MINIMUM;
}
