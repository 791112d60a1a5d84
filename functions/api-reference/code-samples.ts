import type { RouteContract, RouteExample } from '../lib/http/contract.js';
import type { KeyRoute, Route } from '../routes.js';

// curl and JavaScript (fetch) calls of a route's example, for the API reference. They read the base
// URL and keys from the variables its getting-started section sets: NETINTEL_URL and
// NETINTEL_SECRET_KEY in the shell and in Node.js; in a page, the constants NETINTEL_URL and
// NETINTEL_PUBLISHABLE_KEY. Publishable keys are for browsers, so their JavaScript is page code;
// secret keys are for backends, so theirs is Node.js.

export interface CodeSample {
  lang: 'curl' | 'JavaScript';
  source: string;
}

/** An origin on the development key's list (`npm start` allows http://localhost:*). */
export const SAMPLE_ORIGIN = 'http://localhost:3000';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The example's path and query, e.g. `/v1/lookup/8.8.8.8?include=hostname`. */
export function examplePath(route: Route, example: RouteExample): string {
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = example.params?.[name];
    if (value === undefined) throw new Error(`example of ${route.name} has no path parameter ${name}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(example.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}

const jsString = (text: string) => `'${text.replace(/['\\]/g, '\\$&').replaceAll('\n', '\\n')}'`;
/** A property name; `__proto__` computed, since a literal one (quoted or not) sets the prototype instead. */
const jsKey = (key: string) =>
  key === '__proto__' ? `[${jsString(key)}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? key : jsString(key);

/** A JSON value as JavaScript source: on one line when short, else one member per line under `indent`. */
export function jsLiteral(value: unknown, indent = ''): string {
  if (typeof value === 'string') return jsString(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const parts = Array.isArray(value)
    ? value.map((v) => jsLiteral(v, inner))
    : Object.entries(value).map(([k, v]) => `${jsKey(k)}: ${jsLiteral(v, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  const line = parts.length === 0 ? open.trim() + close.trim() : `${open}${parts.join(', ')}${close}`;
  if (line.length + indent.length <= 80 && !line.includes('\n')) return line;
  return `${open.trim()}\n${parts.map((p) => `${inner}${p},`).join('\n')}\n${indent}${close.trim()}`;
}

const MULTIPART = 'multipart/form-data';

/**
 * The file a CSV or form example is read from: its `file`, its ?filename=, else list.csv (a form
 * names the file it sends).
 */
export const exampleFile = (example: RouteExample) => example.file ?? example.query?.filename ?? 'list.csv';

/** The file a sample saves a non-JSON answer to: the example's `file`, else results.csv (or response). */
const answerFile = (contract: RouteContract, example: RouteExample) =>
  example.file ?? (contract.responseMediaType === 'text/csv' ? 'results.csv' : 'response');

function curl(route: KeyRoute, contract: RouteContract, example: RouteExample): string {
  // Inside double quotes only $NETINTEL_URL expands: examplePath percent-encodes $, ` and ".
  const lines = [`curl "$NETINTEL_URL${examplePath(route, example)}"`];
  const hasBody = example.body !== undefined;
  // curl sends GET, or POST when given a body: any other method is named (PUT has a body too).
  if (route.method !== (hasBody ? 'POST' : 'GET')) lines[0] += ` -X ${route.method}`;
  // -L: a large results file answers with a redirect to its download.
  if (contract.responseMediaType) lines[0] += ` -L -o ${answerFile(contract, example)}`;
  if (route.auth === 'secret') lines.push('-H "Authorization: Bearer $NETINTEL_SECRET_KEY"');
  else
    lines.push('-H "X-Api-Key: $NETINTEL_PUBLISHABLE_KEY"', `-H ${shellQuote(`Origin: ${SAMPLE_ORIGIN}`)}`);
  for (const [name, value] of Object.entries(example.headers ?? {}))
    lines.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (hasBody && example.contentType === MULTIPART) {
    lines.push(`-F file=@${exampleFile(example)}`);
  } else if (hasBody && example.contentType) {
    lines.push(
      `-H ${shellQuote(`Content-Type: ${example.contentType}`)}`,
      `--data-binary @${exampleFile(example)}`,
    );
  } else if (hasBody) {
    lines.push("-H 'Content-Type: application/json'", `-d ${shellQuote(JSON.stringify(example.body))}`);
  }
  return lines.join(' \\\n  ');
}

function javascript(route: KeyRoute, contract: RouteContract, example: RouteExample): string {
  const browser = route.auth === 'publishable';
  const base = browser ? 'NETINTEL_URL' : 'process.env.NETINTEL_URL';
  const headers: string[] = browser
    ? ["'X-Api-Key': NETINTEL_PUBLISHABLE_KEY"]
    : // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source of the sample
      ['Authorization: `Bearer ${process.env.NETINTEL_SECRET_KEY}`'];
  for (const [name, value] of Object.entries(example.headers ?? {})) {
    headers.push(`${jsKey(name)}: ${jsString(value)}`);
  }
  const init: string[] = [];
  let prelude = '';
  if (example.body !== undefined && example.contentType === MULTIPART) {
    // fetch sets the multipart Content-Type (with its boundary) itself.
    const file = exampleFile(example);
    prelude =
      "import { readFile } from 'node:fs/promises';\n\nconst form = new FormData();\n" +
      `form.append('file', new Blob([await readFile('${file}')], { type: 'text/csv' }), '${file}');\n\n`;
    init.push('body: form');
  } else if (example.body !== undefined && example.contentType) {
    prelude = "import { readFile } from 'node:fs/promises';\n\n";
    headers.push(`'Content-Type': '${example.contentType}'`);
    init.push(`body: await readFile('${exampleFile(example)}')`);
  } else if (example.body !== undefined) {
    headers.push("'Content-Type': 'application/json'");
    init.push(`body: JSON.stringify(${jsLiteral(example.body, '  ')})`);
  }
  const oneLine = `headers: { ${headers.join(', ')} }`;
  init.unshift(
    oneLine.length <= 78 ? oneLine : `headers: {\n${headers.map((h) => `    ${h},`).join('\n')}\n  }`,
  );
  if (route.method !== 'GET') init.unshift(`method: '${route.method}'`);
  const call = `const res = await fetch(\`\${${base}}${examplePath(route, example)}\`, {\n  ${init.join(',\n  ')},\n});`;
  const status = contract.responseStatus ?? 200;
  const outcome =
    status === 204
      ? `if (res.status !== 204) throw new Error((await res.json()).error);`
      : contract.responseMediaType
        ? `if (!res.ok) throw new Error((await res.json()).error);\nconst text = await res.text();`
        : // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source of the sample
          'const body = await res.json();\nif (!res.ok) throw new Error(`${body.error}: ${body.message}`);';
  const where = browser
    ? "// In your page's script: its origin must be on the key's allowed origins.\n"
    : `// On your server (Node.js ${SAMPLE_NODE_VERSION} or later): never send a secret key to a browser.\n`;
  return `${prelude}${where}${call}\n${outcome}`;
}

/**
 * The oldest Node.js a server-side sample is promised to run on: the project's and its client's
 * (package.json `engines`; a unit test keeps them equal).
 */
export const SAMPLE_NODE_VERSION = 20;

/** The calls of one example, curl first. */
export function codeSamples(route: KeyRoute, contract: RouteContract, example: RouteExample): CodeSample[] {
  return [
    { lang: 'curl', source: curl(route, contract, example) },
    { lang: 'JavaScript', source: javascript(route, contract, example) },
  ];
}
