import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';

// Issue 15: every AWS SDK client the functions create is captured by the tracer where it is created
// (functions/lib/aws/tracing.ts traceClient), so that its calls show in X-Ray. Read as text: a
// client created any other way would be missing from the traces without anything failing.

const FUNCTIONS = join(process.cwd(), 'functions');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text with comments blanked, so that an example in a comment is not a creation. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
}

/**
 * `new X(` expressions that are not the argument of traceClient(...), where X is an SDK client
 * class: imported from @aws-sdk/* (under any local name), or reached on a loaded SDK module
 * (`this.sdk.SESv2Client`, functions/lib/aws/ses-notifier.ts).
 */
function untracedClients(file: string, text: string): string[] {
  const source = code(text);
  const sdkClasses = new Set<string>();
  for (const m of source.matchAll(/import\s+(?!type\s)\{([^}]*)\}\s*from\s*['"]@aws-sdk\/[^'"]+['"]/g)) {
    for (const specifier of m[1]!.split(',')) {
      const [imported, local = imported] = specifier.trim().split(/\s+as\s+/);
      if (imported && /Client$/.test(imported)) sdkClasses.add(local!);
    }
  }
  const found: string[] = [];
  for (const m of source.matchAll(/new\s+([\w$]+(?:\.[\w$]+)*)\s*\(/g)) {
    const path = m[1]!;
    const onLoadedSdk = /(^|\.)sdk\.[\w$]+Client$/i.test(path);
    if (!sdkClasses.has(path) && !onLoadedSdk) continue;
    const before = source.slice(0, m.index).trimEnd();
    if (!before.endsWith('traceClient('))
      found.push(`${file}: new ${path}(...) is not traceClient(new ${path}(...))`);
  }
  return found;
}

describe('every AWS SDK client goes through the tracer (issue 15)', () => {
  test('no module of functions/ creates an SDK client outside traceClient()', () => {
    const files = sourceFiles(FUNCTIONS).map((path) => relative(FUNCTIONS, path).split('\\').join('/'));
    const creations = files.flatMap((file) => {
      const text = readFileSync(join(FUNCTIONS, file), 'utf8');
      return [...code(text).matchAll(/traceClient\(\s*new\s/g)].map(() => file);
    });
    const found = files.flatMap((file) => untracedClients(file, readFileSync(join(FUNCTIONS, file), 'utf8')));

    expect(found).toEqual([]);
    // The rule looks at the right places: the DynamoDB, S3, SQS, SES, CloudFront and API Gateway clients.
    expect(creations.sort()).toEqual([
      'lib/aws/api-gateway-usage-plan-keys.ts',
      'lib/aws/cloudfront-tenants.ts',
      'lib/aws/dynamo-client.ts',
      'lib/aws/s3-client.ts',
      'lib/aws/ses-notifier.ts',
      'lib/aws/sqs-client.ts',
    ]);
  });

  test('the rule sees an untraced client, imported or required', () => {
    expect(
      untracedClients(
        'x.ts',
        [
          "import { S3Client, GetObjectCommand } from '@aws-sdk/client-s3';",
          "import { SQSClient as Queue } from '@aws-sdk/client-sqs';",
          'const s3 = new S3Client({});',
          'const q = new Queue({});',
          'const ses = new this.sdk.SESv2Client({});',
          'const traced = traceClient(new S3Client({}));',
          '// new S3Client({}) in a comment',
          'const mine = new CachingClient();',
        ].join('\n'),
      ),
    ).toEqual([
      'x.ts: new S3Client(...) is not traceClient(new S3Client(...))',
      'x.ts: new Queue(...) is not traceClient(new Queue(...))',
      'x.ts: new this.sdk.SESv2Client(...) is not traceClient(new this.sdk.SESv2Client(...))',
    ]);
  });
});
