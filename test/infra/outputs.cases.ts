import { describe, expect, test } from '@jest/globals';
import { TABLES, WEBHOOK_QUEUE } from '../../functions/lib/aws/resources.js';
import { environmentFromOutputs, OUTPUTS } from '../../infra/outputs.js';

// What `npm run admin -- --outputs cdk-outputs.json` makes of a deployed stack's outputs. The stack
// test (stack.test.ts) checks that the stack emits these output names.

const tableOutputs = Object.fromEntries(TABLES.map((t) => [OUTPUTS.table(t.id), `Netintel-${t.id}-ABC123`]));

describe('environmentFromOutputs', () => {
  test('every table output becomes its TABLE_* variable; custom-hostname outputs their variables', () => {
    const env = environmentFromOutputs({
      ...tableOutputs,
      [OUTPUTS.apiUrl]: 'https://d111.cloudfront.net',
      [OUTPUTS.customHostnameTarget]: 'd222.cloudfront.net',
      [OUTPUTS.baseDomain]: 'api.example.com',
    });
    for (const t of TABLES) expect(env[t.envVar]).toBe(`Netintel-${t.id}-ABC123`);
    expect(env).toMatchObject({
      CUSTOM_HOSTNAME_TARGET: 'd222.cloudfront.net',
      BASE_DOMAIN: 'api.example.com',
    });
    expect(env.CUSTOM_HOSTNAME_DISTRIBUTION_ID).toBeUndefined();
  });

  test('the webhooks queue output becomes WEBHOOKS_QUEUE_URL (webhooks test, redeliver); a stack without it sets none', () => {
    const env = environmentFromOutputs({
      ...tableOutputs,
      [OUTPUTS.webhooksQueueUrl]:
        'https://sqs.eu-west-1.amazonaws.com/123456789012/Netintel-WebhookPipelineQueue',
    });
    expect(env[WEBHOOK_QUEUE.envVar]).toBe(
      'https://sqs.eu-west-1.amazonaws.com/123456789012/Netintel-WebhookPipelineQueue',
    );
    expect(environmentFromOutputs(tableOutputs)[WEBHOOK_QUEUE.envVar]).toBeUndefined();
  });

  test('outputs without a table are refused rather than falling back to the local table names', () => {
    const { [OUTPUTS.table('Accounts')]: _accounts, ...partial } = tableOutputs;
    expect(() => environmentFromOutputs(partial)).toThrow('TableAccountsName');
    expect(() => environmentFromOutputs({})).toThrow(/lack/);
  });
});
