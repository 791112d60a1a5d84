// Every value of a request's headers and query parameters, from an API Gateway REST event. The
// single-value maps (`headers`, `queryStringParameters`) keep only the last of repeated values, so
// anything that must notice a repeat (a second API key) reads the multi-value maps API Gateway
// sends beside them (`multiValueHeaders`, `multiValueQueryStringParameters`).

type Single = Record<string, string | undefined> | null | undefined;
type Multi = Record<string, string[] | undefined> | null | undefined;

/** Every value of every name; `fold` merges names that differ only in case. */
function allValues(single: Single, multi: Multi, fold: (name: string) => string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (name: string, values: readonly string[]) => {
    out[name] = [...(out[name] ?? []), ...values];
  };
  for (const [name, values] of Object.entries(multi ?? {})) if (values) add(fold(name), values);
  // A name only in the single-value map (an event built without multi-value maps).
  const fromMulti = new Set(Object.keys(out));
  for (const [name, value] of Object.entries(single ?? {})) {
    if (value !== undefined && !fromMulti.has(fold(name))) add(fold(name), [value]);
  }
  return out;
}

/**
 * Every value of every header under its lower-cased name: header names are case-insensitive
 * (RFC 9110 section 5.1), so `authorization` and `Authorization` sent once each are two values.
 */
export function headerValues(event: {
  headers?: Single;
  multiValueHeaders?: Multi;
}): Record<string, string[]> {
  return allValues(event.headers, event.multiValueHeaders, (name) => name.toLowerCase());
}

/** Every value of every query parameter (names are case-sensitive: `key` is not `KEY`). */
export function queryValues(event: {
  queryStringParameters?: Single;
  multiValueQueryStringParameters?: Multi;
}): Record<string, string[]> {
  return allValues(event.queryStringParameters, event.multiValueQueryStringParameters, (name) => name);
}

/** The last value of each name, as API Gateway's single-value maps hold them. */
export function lastValues(values: Record<string, readonly string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, all] of Object.entries(values)) if (all.length > 0) out[name] = all.at(-1)!;
  return out;
}
