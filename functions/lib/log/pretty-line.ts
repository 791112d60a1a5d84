// The human-readable form of a Powertools log item, for `npm start` in a terminal (docs/operations.md: Logs):
// one line per entry, time, level, request id, message, then the entry's own fields as key=value.
// The JSON form (Lambda, tests, a piped `npm start`) stays Powertools' own.

/** Powertools' standard keys that say nothing to someone watching a local server. */
const QUIET_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'correlation_id',
  'service',
  'sampling_rate',
  'xray_trace_id',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'function_version',
  'tenant_id',
]);

/** A field value as it reads on one line: bare when it is a plain word, JSON otherwise. */
function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

/** An error as Powertools formats it ({name, message, stack, ...}): its message inline, its stack after. */
function isFormattedError(value: unknown): value is { name?: string; message?: string; stack?: string } {
  return typeof value === 'object' && value !== null && 'stack' in value && 'message' in value;
}

/** One log item's attributes (what Powertools would print as JSON) as a readable line. */
export function prettyLine(attributes: Record<string, unknown>): string {
  const timestamp = String(attributes.timestamp ?? '');
  const time = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(timestamp)?.[1] ?? timestamp;
  const level = String(attributes.level ?? '').padEnd(5);
  const id = attributes.correlation_id ? String(attributes.correlation_id) : '-';
  const fields: string[] = [];
  const stacks: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (QUIET_KEYS.has(key) || value === undefined || value === null || value === '') continue;
    if (isFormattedError(value)) {
      fields.push(`${key}=${show(`${value.name ?? 'Error'}: ${value.message ?? ''}`)}`);
      if (value.stack) stacks.push(`    ${value.stack.split('\n').slice(1).join('\n    ').trim()}`);
      continue;
    }
    fields.push(`${key}=${show(value)}`);
  }
  const line = [time, level, id, String(attributes.message ?? ''), ...fields].join(' ');
  return stacks.length > 0 ? `${line}\n${stacks.join('\n')}` : line;
}
