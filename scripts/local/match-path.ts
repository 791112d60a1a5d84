import { ROUTES, type Route } from '../../functions/routes.js';

// The local gateway's routing (api-gateway.ts): a request path to the route table's resource, as
// API Gateway matches it. In AWS, API Gateway does this from the resources the stack deploys.

const PARAM = /\{(\w+)\}/g;

/** An absolute-form request-target's scheme and authority (a request written for a proxy). */
const ABSOLUTE_FORM = /^https?:\/\/[^/?]*/i;

/**
 * The path and query of a request-target as the client sent it: the path is what precedes the
 * first `?` (of an absolute-form target, what follows its authority), never normalised as a URL
 * parser would (`\` read as `/`, `.` and `..` segments resolved, `%2e%2e` among them). API Gateway
 * routes the path as sent, so `/v1/lookup/../usage` is no route, and a path parameter is one
 * segment as sent, percent-decoded afterwards.
 */
export function requestTarget(target: string): { path: string; query: string } {
  const question = target.indexOf('?');
  let path = question < 0 ? target : target.slice(0, question);
  const query = question < 0 ? '' : target.slice(question + 1);
  const absolute = ABSOLUTE_FORM.exec(path);
  if (absolute) path = path.slice(absolute[0].length) || '/';
  return { path, query };
}

/**
 * Matches a concrete path against the table like API Gateway does: the most specific resource
 * (fewest path parameters) wins. Returns that resource's routes (one per method) and parameters.
 */
export function matchPath(
  path: string,
): { routes: Route[]; pathParameters: Record<string, string> } | undefined {
  return matchIn(ROUTES as readonly Route[], path);
}

const compiledPaths = new Map<string, { pattern: RegExp; names: string[] }>();

/** A route template as a regular expression and its parameter names, built once per template. */
function compiledPath(template: string): { pattern: RegExp; names: string[] } {
  let compiled = compiledPaths.get(template);
  if (!compiled) {
    const names: string[] = [];
    const source = template.replace(PARAM, (_m, n: string) => {
      names.push(n);
      return '([^/]+)';
    });
    compiled = { pattern: new RegExp(`^${source}$`), names };
    compiledPaths.set(template, compiled);
  }
  return compiled;
}

/** The routes of `table` at the most specific resource matching `path`, and its path parameters. */
export function matchIn<R extends { path: string }>(
  table: readonly R[],
  path: string,
): { routes: R[]; pathParameters: Record<string, string> } | undefined {
  let best: { template: string; params: Record<string, string>; count: number } | undefined;
  for (const route of table) {
    const { pattern, names } = compiledPath(route.path);
    const m = pattern.exec(path);
    if (!m || (best && best.count <= names.length)) continue;
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      params[n] = m[i + 1] ?? '';
    });
    best = { template: route.path, params, count: names.length };
  }
  if (!best) return undefined;
  const template = best.template;
  return { routes: table.filter((r) => r.path === template), pathParameters: best.params };
}
