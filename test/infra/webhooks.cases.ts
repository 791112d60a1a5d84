import { beforeAll, describe, expect, it } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { TABLES, WEBHOOK_QUEUE, WEBHOOK_SWEEP } from '../../functions/lib/aws/resources.js';
import type { Route } from '../../functions/lib/route-types.js';
import { ROUTES as ROUTE_TABLE } from '../../functions/routes.js';
import { OUTPUTS } from '../../infra/outputs.js';
import { CONSUMERS } from '../../scripts/local/sqs-poller.js';
import {
  type CfnResource,
  ofType,
  refId,
  roleStatements,
  type SynthesizedStack,
  synthesize,
} from './synth.js';

// Webhooks in the deployed stack (infra/constructs/webhook-pipeline.ts): the deliveries queue and its
// DLQ, the delivery function and the sweep, who may announce events, and a loopback switch that
// only the local stack ever turns on. Reads the default stack synthesized once for all cases.

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

let s: SynthesizedStack;
beforeAll(() => {
  s = synthesize();
});

function fn(description: string): [string, CfnResource] {
  const found = ofType(s.resources, 'AWS::Lambda::Function').filter(
    ([, f]) => props(f).Description === description,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

function logicalId(type: string, prefix: string): string {
  const found = ofType(s.resources, type).filter(([id]) => id.startsWith(prefix));
  expect(found).toHaveLength(1);
  return found[0]![0];
}

const webhooksQueue = () => logicalId('AWS::SQS::Queue', 'WebhookPipelineQueue');
const webhooksDlq = () => logicalId('AWS::SQS::Queue', 'WebhookPipelineDlq');
const webhooksTable = () => logicalId('AWS::DynamoDB::Table', 'TablesWebhooks');

function statementsOf(functionId: string): Props[] {
  return roleStatements(s.resources, refId(props(s.resources[functionId]!).Role)) as Props[];
}

function actionsOn(statements: Props[], resourceId: string): string[] {
  return statements
    .filter((st) => [st.Resource].flat().some((r: unknown) => refId(r) === resourceId))
    .flatMap((st) => [st.Action].flat() as string[]);
}

function mappingOf(functionId: string): Props {
  const found = ofType(s.resources, 'AWS::Lambda::EventSourceMapping')
    .map(([, m]) => props(m))
    .filter((m) => refId(m.FunctionName) === functionId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Our functions (those with a description), by description. */
function ourFunctions(): [string, string][] {
  return ofType(s.resources, 'AWS::Lambda::Function').flatMap(([id, f]) => {
    const description = props(f).Description as string | undefined;
    return description ? [[description, id] as [string, string]] : [];
  });
}

const ROUTES: readonly Route[] = ROUTE_TABLE;

/** The functions that announce events: list jobs' end, and usage thresholds of billed calls. */
const ANNOUNCERS = ['queue:job-processor', 'queue:job-dlq', 'schedule:job-sweeper'];

describe('webhooks', () => {
  it('no function of the stack has WEBHOOKS_ALLOW_LOOPBACK: deployed webhooks never go to loopback', () => {
    const functions = ofType(s.resources, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(ROUTES.length);
    for (const [id, f] of functions) {
      const variables = (props(f).Environment?.Variables ?? {}) as Props;
      expect({ id, set: 'WEBHOOKS_ALLOW_LOOPBACK' in variables }).toEqual({ id, set: false });
    }
    // Nor anywhere else in the template (a parameter, an override, another resource).
    expect(JSON.stringify(s.template.toJSON())).not.toContain('WEBHOOKS_ALLOW_LOOPBACK');
  });

  it('gives every function of ours the deliveries queue URL', () => {
    for (const [description, id] of ourFunctions()) {
      const url = props(s.resources[id]!).Environment.Variables[WEBHOOK_QUEUE.envVar];
      expect({ description, queue: refId(url) }).toEqual({ description, queue: webhooksQueue() });
    }
  });

  it('feeds the delivery function from the deliveries queue, with partial batch responses and a maximum concurrency', () => {
    const [id, delivery] = fn('queue:webhook-delivery');
    const mapping = mappingOf(id);
    expect(refId(mapping.EventSourceArn)).toBe(webhooksQueue());
    expect(mapping.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping.BatchSize).toBe(WEBHOOK_QUEUE.batchSize);
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: WEBHOOK_QUEUE.maxConcurrency });
    expect(props(delivery).Timeout).toBe(WEBHOOK_QUEUE.deliveryTimeoutSeconds);
    // The local stack polls it with the same batch size and timeout (scripts/local/sqs-poller.ts).
    expect(CONSUMERS.webhooks.batchSize).toBe(mapping.BatchSize);
    expect(CONSUMERS.webhooks.timeoutSeconds).toBe(props(delivery).Timeout);
  });

  it('runs the sweep on a schedule, every minute, without retries', () => {
    const [id] = fn('schedule:webhook-sweeper');
    const rules = ofType(s.resources, 'AWS::Events::Rule')
      .map(([, r]) => props(r))
      .filter((r) => (r.Targets as Props[]).some((t) => refId(t.Arn) === id));
    expect(rules).toHaveLength(1);
    expect(WEBHOOK_SWEEP.everySeconds).toBe(60);
    expect(rules[0]!.ScheduleExpression).toBe('rate(1 minute)');
    expect(rules[0]!.State ?? 'ENABLED').toBe('ENABLED');
    expect(rules[0]!.Targets[0].RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
    // Nothing feeds it from a queue.
    expect(
      ofType(s.resources, 'AWS::Lambda::EventSourceMapping').filter(
        ([, m]) => refId(props(m).FunctionName) === id,
      ),
    ).toEqual([]);
  });

  it('encrypts the queue and its DLQ, refuses plain HTTP, and dead-letters after maxReceiveCount receives', () => {
    const queue = props(s.resources[webhooksQueue()]!);
    const dlq = props(s.resources[webhooksDlq()]!);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [webhooksDlq(), 'Arn'] },
      maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount,
    });
    expect(queue.VisibilityTimeout).toBe(WEBHOOK_QUEUE.visibilityTimeoutSeconds);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * props(fn('queue:webhook-delivery')[1]).Timeout,
    );
    for (const q of [queue, dlq]) expect(q.SqsManagedSseEnabled).toBe(true);
    expect(queue.MessageRetentionPeriod).toBe(WEBHOOK_QUEUE.retentionSeconds);
    for (const id of [webhooksQueue(), webhooksDlq()]) {
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
    // Nothing consumes the DLQ: the sweep queues a given-up delivery again.
    expect(
      ofType(s.resources, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
        JSON.stringify(props(m).EventSourceArn).includes(webhooksDlq()),
      ),
    ).toEqual([]);
  });

  it('alarms while deliveries wait in the DLQ (nothing consumes it), and outputs both queue URLs', () => {
    const alarms = ofType(s.resources, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => props(a))
      .filter((a) => JSON.stringify(a.Dimensions ?? []).includes(webhooksDlq()));
    expect(alarms).toEqual([
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      }),
    ]);
    expect(alarms[0]!.AlarmDescription).toMatch(/webhooks DLQ/);
    // The admin CLI's `webhooks test` and `redeliver` queue deliveries with the queue's URL from the outputs.
    expect(refId((s.outputs[OUTPUTS.webhooksQueueUrl] as { Value: unknown }).Value)).toBe(webhooksQueue());
    expect(refId((s.outputs[OUTPUTS.webhooksDlqUrl] as { Value: unknown }).Value)).toBe(webhooksDlq());
  });

  it('the Webhooks table is made from TABLES like the others, with its due index, and outlives the stack', () => {
    const def = TABLES.find((t) => t.id === 'Webhooks')!;
    // Endpoint URLs and signing secrets are the customers': they cannot be made again.
    expect(s.resources[webhooksTable()]!.DeletionPolicy).toBe('Retain');
    const table = props(s.resources[webhooksTable()]!);
    expect(table.GlobalSecondaryIndexes.map((i: Props) => i.IndexName)).toEqual(
      def.indexes!.map((i) => i.name),
    );
    expect(table.TimeToLiveSpecification).toEqual({ AttributeName: def.ttlAttribute, Enabled: true });
    expect(table.SSESpecification).toEqual({ SSEEnabled: true });
  });

  it('the delivery function reads and writes Webhooks, reads Accounts, mails from NOTIFY_FROM and sends to the deliveries queue alone', () => {
    const statements = statementsOf(fn('queue:webhook-delivery')[0]);
    expect(actionsOn(statements, webhooksTable())).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:Query',
      ]),
    );
    const accounts = actionsOn(statements, logicalId('AWS::DynamoDB::Table', 'TablesAccounts'));
    expect(accounts).toContain('dynamodb:GetItem');
    expect(accounts).not.toContain('dynamodb:PutItem');
    expect(accounts).not.toContain('dynamodb:UpdateItem');
    const ses = statements.filter((st) => [st.Action].flat().includes('ses:SendEmail'));
    expect(ses).toHaveLength(1);
    expect(JSON.stringify(ses[0]!.Resource)).toContain(':identity/notices@example.com');
    // An attempt that ends hands its receiver to the next delivery in line and queues that one.
    const sends = statements.filter((st) => [st.Action].flat().some((a: string) => a.startsWith('sqs:Send')));
    expect(sends.map((st) => [st.Resource].flat().map(refId))).toEqual([[webhooksQueue()]]);
    for (const other of ['Usage', 'Jobs', 'Baselines', 'Cache', 'Sessions'])
      expect(actionsOn(statements, logicalId('AWS::DynamoDB::Table', `Tables${other}`))).toEqual([]);
  });

  it('the sweep reads and writes Webhooks (its due index too) and sends to the deliveries queue, nothing else', () => {
    const statements = statementsOf(fn('schedule:webhook-sweeper')[0]);
    const onTable = actionsOn(statements, webhooksTable());
    expect(onTable).toEqual(
      expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:PutItem']),
    );
    // CDK's grant covers <table>/index/*, which refId reads as the table: the Query of webhooksDue.
    expect(JSON.stringify(statements)).toContain('/index/*');
    expect(actionsOn(statements, webhooksQueue())).toContain('sqs:SendMessage');
    for (const other of ['Accounts', 'Usage', 'Jobs', 'Baselines', 'Cache', 'Sessions'])
      expect(actionsOn(statements, logicalId('AWS::DynamoDB::Table', `Tables${other}`))).toEqual([]);
    expect(statements.some((st) => [st.Action].flat().includes('ses:SendEmail'))).toBe(false);
  });

  it('announcing is items read, put and updated by key: no Query, Scan, batch or delete, no index (the endpoint sets hold every signing secret)', () => {
    const billed = ROUTES.filter((r) => r.billing.per !== 'none' && !r.access.webhooks).map(
      (r) => `route:${r.name}`,
    );
    for (const description of [...ANNOUNCERS, ...billed]) {
      const statements = statementsOf(fn(description)[0]);
      const onTable = statements.filter((st) => JSON.stringify(st.Resource).includes(webhooksTable()));
      expect({ description, actions: onTable.flatMap((st) => [st.Action].flat()).sort() }).toEqual({
        description,
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      });
      expect({ description, index: JSON.stringify(onTable).includes('/index/') }).toEqual({
        description,
        index: false,
      });
    }
  });

  it('a scheduled function is retried by its rule only (the sweeps never, the refresh twice), never by Lambda; dead letters are kept 14 days', () => {
    const configs = ofType(s.resources, 'AWS::Lambda::EventInvokeConfig').map(([, c]) => props(c));
    const rules = ofType(s.resources, 'AWS::Events::Rule').map(([, r]) => props(r));
    const scheduled = ofType(s.resources, 'AWS::Lambda::Function').filter(([, f]) =>
      String(props(f).Description).startsWith('schedule:'),
    );
    expect(scheduled.map(([, f]) => props(f).Description).sort()).toEqual(
      expect.arrayContaining(['schedule:data-refresh', 'schedule:job-sweeper', 'schedule:webhook-sweeper']),
    );
    for (const [id, f] of scheduled) {
      const description = props(f).Description as string;
      const config = configs.find((c) => refId(c.FunctionName) === id);
      const targets = rules
        .flatMap((r) => (r.Targets ?? []) as Props[])
        .filter((t) => t.Arn?.['Fn::GetAtt']?.[0] === id);
      expect({
        description,
        lambda: config?.MaximumRetryAttempts,
        rule: targets.map((t) => t.RetryPolicy?.MaximumRetryAttempts),
      }).toEqual({ description, lambda: 0, rule: [description === 'schedule:data-refresh' ? 2 : 0] });
    }
    expect(props(s.resources[webhooksDlq()]!).MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('only the functions that announce events or manage webhooks may send to the queue or touch the Webhooks table', () => {
    const queueSenders = new Set([...ANNOUNCERS, 'queue:webhook-delivery', 'schedule:webhook-sweeper']);
    const tableUsers = new Set([...ANNOUNCERS, 'queue:webhook-delivery', 'schedule:webhook-sweeper']);
    for (const route of ROUTES) {
      const billed = route.billing.per !== 'none';
      const access = route.access;
      if (billed || access.webhookQueue) queueSenders.add(`route:${route.name}`);
      if (billed || access.webhooks) tableUsers.add(`route:${route.name}`);
    }
    // The billed routes announce usage.threshold: at least those.
    expect(ROUTES.some((r) => r.billing.per !== 'none')).toBe(true);
    for (const [description, id] of ourFunctions()) {
      const statements = statementsOf(id);
      const sends = actionsOn(statements, webhooksQueue()).includes('sqs:SendMessage');
      const table = actionsOn(statements, webhooksTable());
      expect({ description, sends }).toEqual({ description, sends: queueSenders.has(description) });
      expect({ description, table: table.length > 0 }).toEqual({
        description,
        table: tableUsers.has(description),
      });
      // The announcers write (events, deliveries); a route may be given read only.
      if (ANNOUNCERS.includes(description)) expect(table).toContain('dynamodb:PutItem');
    }
    for (const route of ROUTES.filter((r) => r.access.webhooks === 'read' && r.billing.per === 'none')) {
      const table = actionsOn(statementsOf(fn(`route:${route.name}`)[0]), webhooksTable());
      for (const write of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
        expect(table).not.toContain(write);
    }
    // Nobody reads from the deliveries queue but its event source.
    for (const [description, id] of ourFunctions()) {
      const receives = actionsOn(statementsOf(id), webhooksQueue()).includes('sqs:ReceiveMessage');
      expect({ description, receives }).toEqual({
        description,
        receives: description === 'queue:webhook-delivery',
      });
    }
  });
});
