import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { S3DataStore } from '../../functions/lib/aws/s3-data-source.js';
import { EMAIL_LIST_FILES } from '../../functions/lib/email/lists.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { PROJECT_ROOT } from '../../scripts/local/stack.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Data refresh: the disposable lists ride the refresh pipeline. A function started from the layer's
// lists picks up a newer published version (S3) between requests, without a restart.
let stack: TestStack;
let dns: DnsServer;
const saved = { ...process.env };

describe('email-refresh', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    Object.assign(process.env, {
      DNS_SERVERS: dns.address,
      DATA_REFRESH_S3: 'true',
      DATA_BUCKET: BUCKET.localName,
      DATA_CHECK_INTERVAL_MS: '0',
    });
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    process.env = saved;
  });

  const validate = async (email: string) =>
    (await (
      await stack.call('POST', '/v1/email/validate', { headers: stack.browser(), body: { email } })
    ).json()) as {
      isDisposable: boolean;
      disposableSource: string | null;
    };

  test('a newly published disposable list is used by the next requests, without a restart', async () => {
    expect((await validate('someone@fresh-burner.example')).isDisposable).toBe(false);

    const layer = join(PROJECT_ROOT, 'layers', 'data', 'email');
    const files = await Promise.all(
      Object.values(EMAIL_LIST_FILES).map(async (name) => {
        let body = await readFile(join(layer, name));
        if (name === EMAIL_LIST_FILES.disposable)
          body = Buffer.concat([body, Buffer.from('\nfresh-burner.example\n')]);
        return { path: `email/${name}`, body: new Uint8Array(body), contentType: 'text/plain' };
      }),
    );
    const s3 = new S3Client({
      endpoint: stack.endpoints.s3,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: LOCAL_CREDENTIALS,
    });
    await new S3DataStore(s3, BUCKET.localName).publish('20991231T000000Z-0123456789ab', files, new Date());

    let result = await validate('someone@fresh-burner.example');
    for (let i = 0; i < 50 && !result.isDisposable; i++) {
      await new Promise((r) => setTimeout(r, 100));
      result = await validate('someone@fresh-burner.example');
    }
    expect(result).toMatchObject({ isDisposable: true, disposableSource: 'list' });
  });
});
