import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';

// STYLE.md, "a pure core, thin edges": domain code under functions/lib/<area>/ knows neither AWS
// nor HTTP. Only the adapters (aws/), the runtime wiring (runtime/) and the HTTP layer (http/) may
// import an AWS SDK package or the API's HTTP errors; the domain returns outcomes or throws its own
// errors, and the HTTP layer maps them. The files are read as text: the rule is about what they
// import, whatever they do at run time.

const ROOT = join(process.cwd(), 'functions/lib');
const EDGES = ['aws/', 'runtime/', 'http/'];

/**
 * Violations that predate the rule, each left to the change that owns its file (redesign, docs/architecture.md). Do
 * not add to this list: map the outcome in the HTTP layer instead. Remove an entry once fixed.
 */
const KNOWN: Record<string, string> = {
  'jobs/job-creation.ts': 'its idempotency and abandon errors extend HttpError (job-store split)',
  'jobs/idempotency.ts': 'throws ValidationError for a bad Idempotency-Key header',
  'jobs/list-cursor.ts': 'throws ValidationError for a bad cursor or limit',
  'ip/query.ts': 'throws ValidationError for a bad ?include=',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Module specifiers a file imports at run time (type-only imports erase and are left out). */
function valueImports(text: string): { specifier: string; names: string }[] {
  const found: { specifier: string; names: string }[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(?!type\s)([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(statement)) found.push({ specifier: m[3]!, names: m[2]! });
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ specifier: m[1]!, names: '*' });
  return found;
}

/** Why a domain file breaks the rule, or nothing. */
function violations(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { specifier, names } of valueImports(text)) {
    if (specifier.startsWith('@aws-sdk/')) out.push(`${file} imports the AWS SDK package ${specifier}`);
    if (/(^|\/)http\/errors(\.js)?$/.test(specifier) || /\bHttpError\b/.test(names))
      out.push(`${file} imports HTTP errors (${names.replace(/\s+/g, ' ').trim()}) from ${specifier}`);
  }
  if (/\bthrow\s+new\s+HttpError\b/.test(text)) out.push(`${file} throws HttpError`);
  return out;
}

const domainFiles = sourceFiles(ROOT)
  .map((path) => relative(ROOT, path).split('\\').join('/'))
  .filter((file) => !EDGES.some((edge) => file.startsWith(edge)));

describe('domain code knows neither AWS nor HTTP (STYLE.md: a pure core, thin edges)', () => {
  test('no module of functions/lib outside aws/, runtime/ and http/ imports an AWS SDK package or HTTP errors', () => {
    const found = domainFiles
      .filter((file) => !(file in KNOWN))
      .flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8')));

    expect(found).toEqual([]);
  });

  test('the rule sees a violation when there is one', () => {
    expect(
      violations(
        'x/y.ts',
        "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { HttpError } from '../http/errors.js';\nthrow new HttpError('x', 'y');",
      ),
    ).toEqual([
      'x/y.ts imports the AWS SDK package @aws-sdk/client-dynamodb',
      'x/y.ts imports HTTP errors ({ HttpError }) from ../http/errors.js',
      'x/y.ts throws HttpError',
    ]);
    expect(violations('x/z.ts', "import type { ErrorCode } from '../http/errors.js';")).toEqual([]);
  });

  test('the modules this issue moved out of HTTP stay out of it', () => {
    for (const file of [
      'limits/admission.ts',
      'limits/usage-notices.ts',
      'jobs/job-access.ts',
      'jobs/job-input.ts',
    ]) {
      expect(violations(file, readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
      expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/from '\.\.\/http\//);
    }
  });
});
