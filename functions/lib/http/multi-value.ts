// Every value of a request's headers and query parameters, from an API Gateway REST event. The
// single-value maps (`headers`, `queryStringParameters`) keep only the last of repeated values, so
// anything that must notice a repeat (a second API key) reads the multi-value maps API Gateway
// sends beside them (`multiValueHeaders`, `multiValueQueryStringParameters`).

type Single = Record<string, string | undefined> | null | undefined;
type Multi = Record<string, string[] | undefined> | null | undefined;

/**
 * Every value of every name; `fold` merges names that differ only in case. Gathered in a Map: a
 * header named `__proto__` is a name like any other, not the prototype of a plain object.
 */
function allValues(single: Single, multi: Multi, fold: (name: string) => string): Record<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, values: readonly string[]) => {
    out.set(name, [...(out.get(name) ?? []), ...values]);
  };
  for (const [name, values] of Object.entries(multi ?? {})) if (values) add(fold(name), values);
  // A name only in the single-value map (an event built without multi-value maps).
  const fromMulti = new Set(out.keys());
  for (const [name, value] of Object.entries(single ?? {})) {
    if (value !== undefined && !fromMulti.has(fold(name))) add(fold(name), [value]);
  }
  // Own properties, `__proto__` included (Object.fromEntries defines, never sets, each key).
  return Object.fromEntries(out);
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
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, all]) => all.length > 0)
      .map(([name, all]) => [name, all.at(-1)!]),
  );
}
