import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from '@jest/globals';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { NetintelStack, type NetintelStackProps } from '../../infra/netintel-stack.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// Stack tests synthesize without bundling (the `aws:cdk:bundling-stacks` context) and without the
// built-in CloudFormation validator: ~1 s instead of ~20 s (CDK runs esbuild once per function,
// ~0.75 s each on 2 cores, and the validator ~4 s). The CDK CLI rejects that context key, so only
// tests use it. The data layer is a one-file fixture instead of the real databases.
export const LAYER_FIXTURE = join(PROJECT_ROOT, 'test/fixtures/layer');

// Without an outdir CDK writes each app to a fresh os.tmpdir()/cdk.outXXXX and never removes it
// (~24 MB a synth, hundreds per day of test runs); apps without one of their own write here instead.
const ownOutdirs = mkdtempSync(join(tmpdir(), 'netintel-synth-'));
afterAll(() => rmSync(ownOutdirs, { recursive: true, force: true }));

/** cdk.json's context (feature flags), which `cdk synth` gives the app. */
const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> }
).context;

/** `context`: what `cdk synth -c key=value` would set (values are strings there). */
export function testApp(outdir?: string, context: Record<string, string> = {}): App {
  return new App({
    builtinCloudFormationValidation: false,
    context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context },
    outdir: outdir ?? mkdtempSync(join(ownOutdirs, 'app-')),
  });
}

export function netintelStack(
  app: App = testApp(),
  props: Partial<NetintelStackProps> = { notifyFrom: 'notices@example.com' },
): NetintelStack {
  return new NetintelStack(app, 'Netintel', { dataLayerDir: LAYER_FIXTURE, ...props });
}

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string | string[];
}

export interface SynthesizedStack {
  stack: NetintelStack;
  template: Template;
  resources: Record<string, CfnResource>;
  outputs: Record<string, unknown>;
}

/** The default stack, synthesized once for every case of the file that reads it (none changes it). */
let defaultStack: SynthesizedStack | undefined;

export function synthesize(stack?: NetintelStack): SynthesizedStack {
  if (!stack) {
    defaultStack ??= synthesize(netintelStack());
    return defaultStack;
  }
  const template = Template.fromStack(stack);
  const json = template.toJSON() as {
    Resources: Record<string, CfnResource>;
    Outputs: Record<string, unknown>;
  };
  return { stack, template, resources: json.Resources, outputs: json.Outputs };
}

export function ofType(resources: Record<string, CfnResource>, type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/**
 * `{Ref: id}` or `{Fn::GetAtt: [id, ...]}` -> id; also a table's `<arn>/index/*` (an Fn::Join of
 * its GetAtt and the suffix), which grants on a table with indexes add.
 */
export function refId(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
    const joined = v['Fn::Join']?.[1];
    if (joined?.length === 2 && joined[1] === '/index/*') return refId(joined[0]);
    return v.Ref ?? v['Fn::GetAtt']?.[0];
  }
  return undefined;
}

/**
 * The statements of a role's identity policies: its own (`Policies`: our functions' roles keep
 * their permissions there, infra/constructs/netintel-function.ts InlinePolicyRole) and those of the
 * AWS::IAM::Policy resources attached to it (CDK's roles).
 */
export function roleStatements(
  resources: Record<string, CfnResource>,
  roleId: string | undefined,
): Record<string, unknown>[] {
  type Document = { PolicyDocument: { Statement: Record<string, unknown>[] } };
  const role = roleId ? resources[roleId] : undefined;
  const own = ((role?.Properties?.Policies ?? []) as Document[]).flatMap((p) => p.PolicyDocument.Statement);
  const attached = ofType(resources, 'AWS::IAM::Policy')
    .map(([, p]) => p.Properties as { Roles: unknown[] } & Document)
    .filter((p) => p.Roles.some((r) => refId(r) === roleId))
    .flatMap((p) => p.PolicyDocument.Statement);
  return [...own, ...attached];
}

/** Every identity-policy statement of the template: roles' own policies and AWS::IAM::Policy resources. */
export function allRoleStatements(resources: Record<string, CfnResource>): Record<string, unknown>[] {
  return ofType(resources, 'AWS::IAM::Role').flatMap(([id]) => roleStatements(resources, id));
}

interface NagReport {
  pluginReports: {
    violations: { ruleName: string; severity: string; violatingConstructs: { constructPath: string }[] }[];
  }[];
}

/**
 * Synthesizes `app` (written to `outdir`) with cdk-nag's AwsSolutions checks and answers the
 * unacknowledged errors as "rule at construct path", and what synth threw (cdk-nag 3 fails it).
 */
export function nagErrors(app: App, outdir: string): { errors: string[]; synthError: unknown } {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let synthError: unknown;
  try {
    app.synth();
  } catch (err) {
    synthError = err;
  }
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as NagReport;
  const errors = report.pluginReports
    .flatMap((p) => p.violations)
    .filter((v) => v.severity === 'error' || v.severity === 'fatal')
    .flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`));
  return { errors, synthError };
}
