import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DataLayer } from '../../../infra/constructs/data-layer.js';
import { DataRefresh } from '../../../infra/constructs/data-refresh.js';
import { NetintelFunction } from '../../../infra/constructs/netintel-function.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';

// The DataRefresh construct on its own (the stack wires it; this checks what it brings): the
// schedule, the alarms, least-privilege access to `data/*`, and no unacknowledged cdk-nag finding of
// its own. Synthesized without bundling, as the stack tests do (bundling runs esbuild once per
// function: ~20 s a synth on 2 cores).

const outdir = mkdtempSync(join(tmpdir(), 'netintel-refresh-cdk-'));
describe('construct', () => {
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  function synth() {
    const app = new App({
      builtinCloudFormationValidation: false,
      context: { 'aws:cdk:bundling-stacks': [] },
      outdir,
    });
    const stack = new Stack(app, 'RefreshTest');
    const bucket = new Bucket(stack, 'Bucket', { encryption: BucketEncryption.S3_MANAGED, enforceSSL: true });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Test stand-in for the jobs bucket, whose access logging the stack (JobPipeline) configures.',
    });
    const dataLayer = new DataLayer(stack, 'DataLayer', {
      assetDir: join(PROJECT_ROOT, 'test/fixtures/layer'),
    });
    const refresh = new DataRefresh(stack, 'DataRefresh', { bucket, dataLayer });
    const consumer = new NetintelFunction(stack, 'Consumer', {
      handler: 'lookup-ip',
      description: 'route:lookup-ip',
      memoryMb: 256,
      timeoutSeconds: 10,
      environment: refresh.consumerEnvironment(),
    });
    refresh.grantReadData(consumer.fn, consumer);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    return { app, stack, refresh };
  }

  describe('the DataRefresh construct', () => {
    const { app, stack } = synth();
    const template = Template.fromStack(stack);

    test('runs the refresh function every 6 hours', () => {
      template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(6 hours)' });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: 'schedule:data-refresh',
        MemorySize: 4096,
        Timeout: 900,
        Environment: {
          Variables: Match.objectLike({ DATA_BUCKET: Match.anyValue(), NETINTEL_DATA_PATH: '/opt/data' }),
        },
        Layers: Match.anyValue(),
      });
    });

    test('alarms on refreshRejected > 0 in the netintel namespace and on the function errors', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'netintel',
        MetricName: 'refreshRejected',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
      });
    });

    test('grants bucket access under data/ and ip-data/ only', () => {
      type Document = { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } };
      // A NetintelFunction's role holds its permissions itself (InlinePolicyRole); CDK's roles use
      // AWS::IAM::Policy resources.
      const roles = Object.values(template.findResources('AWS::IAM::Role')) as {
        Properties: { Policies?: Document[] };
      }[];
      const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
        Properties: Document;
      }[];
      const s3Resources = [
        ...roles.flatMap((r) => r.Properties.Policies ?? []),
        ...policies.map((p) => p.Properties),
      ]
        .flatMap((p) => p.PolicyDocument.Statement)
        .filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:')))
        .flatMap((s) => [s.Resource].flat());
      const objectArns = s3Resources.map((r) => JSON.stringify(r)).filter((r) => r.includes('/'));
      expect(objectArns.length).toBeGreaterThan(0);
      expect(objectArns.every((r) => r.includes('"/data/*"') || r.includes('"/ip-data/*"'))).toBe(true);
      expect(objectArns.some((r) => r.includes('"/ip-data/*"'))).toBe(true);
    });

    test('the consumer gets the variables that turn the S3 hot swap on', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: 'route:lookup-ip',
        Environment: {
          Variables: Match.objectLike({ DATA_REFRESH_S3: 'true', DATA_BUCKET: Match.anyValue() }),
        },
      });
    });

    test('adds no cdk-nag error of its own', () => {
      let synthError: unknown;
      try {
        app.synth();
      } catch (error) {
        synthError = error;
      }
      const reportFile = join(outdir, 'validation-report.json');
      const report = existsSync(reportFile)
        ? (JSON.parse(readFileSync(reportFile, 'utf8')) as {
            pluginReports: {
              violations: {
                ruleName: string;
                severity: string;
                violatingConstructs: { constructPath: string }[];
              }[];
            }[];
          })
        : { pluginReports: [] };
      const errors = report.pluginReports
        .flatMap((p) => p.violations)
        .filter((v) => v.severity === 'error' || v.severity === 'fatal')
        .flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`));
      expect(errors).toEqual([]);
      expect(synthError).toBeUndefined();
    });
  });
});
