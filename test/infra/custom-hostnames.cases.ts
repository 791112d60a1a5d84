import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { HOSTNAME_TIMEOUTS } from '../../functions/lib/custom-hostnames/hostname.js';
import { FORWARDED_HOST_CODE, TENANT_ACTIONS } from '../../infra/constructs/custom-hostnames.js';
import { NetintelStack } from '../../infra/netintel-stack.js';
import { OUTPUTS } from '../../infra/outputs.js';
import {
  type CfnResource,
  LAYER_FIXTURE,
  nagErrors,
  ofType,
  refId,
  roleStatements,
  synthesize,
  testApp,
} from './synth.js';

// Custom hostnames (docs/custom-hostnames.md) in the template: opt-in (-c customHostnames=true), a multi-tenant
// distribution with a connection group, the scheduled verifier with least-privilege grants, and the
// CloudFront Function that carries the viewer's Host to the authorizer.

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

function enabledStack(outdir?: string) {
  const app = testApp(outdir);
  const stack = new NetintelStack(app, 'Netintel', {
    dataLayerDir: LAYER_FIXTURE,
    notifyFrom: 'notices@example.com',
    domainName: 'api.netintel-test.com',
    certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
    customHostnames: true,
  });
  return { app, stack };
}

let resources: Record<string, CfnResource>;
let outputs: Record<string, Props>;
let template: Template;
beforeAll(() => {
  template = Template.fromStack(enabledStack().stack);
  const json = template.toJSON() as { Resources: typeof resources; Outputs: typeof outputs };
  resources = json.Resources;
  outputs = json.Outputs;
});

const verifier = (): [string, CfnResource] => {
  const found = ofType(resources, 'AWS::Lambda::Function').filter(
    ([, r]) => props(r).Description === 'schedule:domain-verifier',
  );
  expect(found).toHaveLength(1);
  return found[0]!;
};

const tenantDistribution = (): [string, Props] => {
  const found = ofType(resources, 'AWS::CloudFront::Distribution').filter(
    ([, r]) => props(r).DistributionConfig.ConnectionMode === 'tenant-only',
  );
  expect(found).toHaveLength(1);
  return [found[0]![0], props(found[0]![1]).DistributionConfig];
};

const statementsOf = (functionId: string): Props[] =>
  roleStatements(resources, refId(props(resources[functionId]!).Role)) as Props[];

describe('custom hostnames are opt-in', () => {
  it('the default stack has no verifier, tenant distribution or connection group', () => {
    const s = synthesize();
    expect(ofType(s.resources, 'AWS::CloudFront::ConnectionGroup')).toHaveLength(0);
    expect(ofType(s.resources, 'AWS::CloudFront::Distribution')).toHaveLength(1);
    expect(Object.keys(s.outputs)).not.toContain(OUTPUTS.customHostnameTarget);
  });

  it('deploys without a custom domain too: no dependency cycle through the distribution', () => {
    // Without -c domainName, BASE_DOMAIN is the distribution's domain, so the dashboard's hostname
    // functions depend on the distribution; its API origin must then not reference the stage, which
    // depends on those functions through its deployment (Template.fromStack refuses a cycle).
    const stack = new NetintelStack(testApp(), 'Netintel', {
      dataLayerDir: LAYER_FIXTURE,
      notifyFrom: 'notices@example.com',
      customHostnames: true,
    });
    const json = Template.fromStack(stack).toJSON() as { Resources: Record<string, CfnResource> };
    const check = Object.entries(json.Resources).find(
      ([id, r]) => id.startsWith('ApiDashboardHostnamesCheckFunction') && r.Type === 'AWS::Lambda::Function',
    )!;
    expect(JSON.stringify(props(check[1]).Environment.Variables.BASE_DOMAIN)).toContain('EdgeDistribution');
  });
});

describe('the multi-tenant distribution', () => {
  it('is tenant-only, with the API origin, its X-Origin-Verify header and the base behaviours', () => {
    const [, config] = tenantDistribution();
    expect(config.IPV6Enabled).toBeUndefined();
    expect(config.Aliases).toBeUndefined();
    const origin = (config.Origins as Props[])[0]!;
    expect(origin.OriginCustomHeaders[0].HeaderName).toBe('X-Origin-Verify');
    expect(JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue)).toContain('{{resolve:secretsmanager:');
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      // AllViewerExceptHostHeader forwards every viewer header, the function's X-Forwarded-Host too.
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      ViewerProtocolPolicy: 'https-only',
    });
    const geo = (config.CacheBehaviors as Props[]).find((b) => b.PathPattern === '/v1/geo')!;
    // The base distribution's geo policy, not a second one (it is at the header quota).
    expect(ofType(resources, 'AWS::CloudFront::OriginRequestPolicy')).toHaveLength(1);
    expect(refId(geo.OriginRequestPolicyId)).toBe(
      ofType(resources, 'AWS::CloudFront::OriginRequestPolicy')[0]![0],
    );
  });

  it('has a connection group whose routing endpoint is the CNAME target customers are given', () => {
    const groups = ofType(resources, 'AWS::CloudFront::ConnectionGroup');
    expect(groups).toHaveLength(1);
    expect(props(groups[0]![1])).toMatchObject({ Enabled: true, Ipv6Enabled: true });
    expect(outputs[OUTPUTS.customHostnameTarget]!.Value).toEqual({
      'Fn::GetAtt': [groups[0]![0], 'RoutingEndpoint'],
    });
    expect(outputs[OUTPUTS.customHostnameDistributionId]!.Value).toEqual({ Ref: tenantDistribution()[0] });
    expect(outputs[OUTPUTS.baseDomain]!.Value).toBe('api.netintel-test.com');
  });
});

describe('the X-Forwarded-Host CloudFront Function', () => {
  it('runs on viewer requests of the API default behaviour of both distributions', () => {
    const functions = ofType(resources, 'AWS::CloudFront::Function').filter(([, f]) =>
      String(props(f).FunctionCode).includes('x-forwarded-host'),
    );
    expect(functions).toHaveLength(1);
    const [functionId, fn] = functions[0]!;
    expect(props(fn).FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    const distributions = ofType(resources, 'AWS::CloudFront::Distribution');
    expect(distributions).toHaveLength(2);
    for (const [, d] of distributions) {
      expect(props(d).DistributionConfig.DefaultCacheBehavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } },
      ]);
    }
  });

  it('copies Host into X-Forwarded-Host and overwrites one the viewer sent', async () => {
    const handler = new Function(`${FORWARDED_HOST_CODE}; return handler;`)() as (
      e: unknown,
    ) => Promise<Props>;
    const request = await handler({
      request: { headers: { host: { value: 'geo.shop.com' }, 'x-forwarded-host': { value: 'victim.com' } } },
    });
    expect(request.headers['x-forwarded-host']).toEqual({ value: 'geo.shop.com' });
    const without = await handler({ request: { headers: { 'x-forwarded-host': { value: 'victim.com' } } } });
    expect(without.headers['x-forwarded-host']).toBeUndefined();
  });

  it("writes the viewer's IP address into X-Viewer-Address and overwrites one the viewer sent", async () => {
    const handler = new Function(`${FORWARDED_HOST_CODE}; return handler;`)() as (
      e: unknown,
    ) => Promise<Props>;
    const forged = {
      'x-viewer-address': { value: '198.51.100.7' },
      host: { value: 'api.netintel-test.com' },
    };
    for (const ip of ['203.0.113.9', '2001:db8::1']) {
      const request = await handler({ viewer: { ip }, request: { headers: { ...forged } } });
      expect(request.headers['x-viewer-address']).toEqual({ value: ip });
    }
    const without = await handler({ request: { headers: { ...forged } } });
    expect(without.headers['x-viewer-address']).toBeUndefined();
  });
});

describe('the scheduled verifier', () => {
  it(`runs every ${HOSTNAME_TIMEOUTS.verifyEveryMinutes} minutes from EventBridge`, () => {
    const [fnId] = verifier();
    const rules = ofType(resources, 'AWS::Events::Rule').filter(([, r]) =>
      (props(r).Targets as Props[]).some((t) => refId(t.Arn) === fnId),
    );
    expect(rules).toHaveLength(1);
    expect(props(rules[0]![1]).ScheduleExpression).toBe('rate(15 minutes)');
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] },
    });
  });

  it('knows the distribution, connection group, CNAME target and base domain', () => {
    const vars = props(verifier()[1]).Environment.Variables as Props;
    const [distributionId] = tenantDistribution();
    const groupId = ofType(resources, 'AWS::CloudFront::ConnectionGroup')[0]![0];
    expect(vars).toMatchObject({
      BASE_DOMAIN: 'api.netintel-test.com',
      CUSTOM_HOSTNAME_DISTRIBUTION_ID: { Ref: distributionId },
      CUSTOM_HOSTNAME_CONNECTION_GROUP_ID: { 'Fn::GetAtt': [groupId, 'Id'] },
      CUSTOM_HOSTNAME_TARGET: { 'Fn::GetAtt': [groupId, 'RoutingEndpoint'] },
      TABLE_ACCOUNTS: expect.anything(),
    });
  });

  it('may read and write the Accounts table and no other', () => {
    const statements = statementsOf(verifier()[0]).filter((st) =>
      [st.Action].flat().some((a: string) => a.startsWith('dynamodb:')),
    );
    const tables = statements.flatMap((st) => [st.Resource].flat().map((r: unknown) => refId(r)));
    expect(new Set(tables)).toEqual(new Set([expect.stringMatching(/^TablesAccounts/)]));
    const actions = statements.flatMap((st) => [st.Action].flat());
    for (const a of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Scan']) {
      expect(actions).toContain(a);
    }
  });

  it('may manage tenants of its own distribution and connection group only', () => {
    const statements = statementsOf(verifier()[0]).filter((st) =>
      [st.Action].flat().some((a: string) => a.startsWith('cloudfront:')),
    );
    expect(statements).toHaveLength(1);
    const st = statements[0]!;
    expect([st.Action].flat().sort()).toEqual([...TENANT_ACTIONS].sort());
    const [distributionId] = tenantDistribution();
    const groupId = ofType(resources, 'AWS::CloudFront::ConnectionGroup')[0]![0];
    const rendered = (st.Resource as unknown[]).map((r) => JSON.stringify(r));
    expect(rendered).toHaveLength(3);
    expect(rendered[0]).toContain(':distribution/');
    expect(rendered[0]).toContain(`{"Ref":"${distributionId}"}`);
    expect(rendered[1]).toContain(':distribution-tenant/*');
    expect(rendered[2]).toBe(JSON.stringify({ 'Fn::GetAtt': [groupId, 'Arn'] }));
    expect(rendered).not.toContain('"*"');
  });
});

describe('the authorizer with custom hostnames', () => {
  it('gets the origin secret (to believe X-Forwarded-Host) and the base domain', () => {
    const authorizer = ofType(resources, 'AWS::Lambda::Function').find(
      ([, r]) => props(r).Description === 'authorizer',
    )!;
    const vars = props(authorizer[1]).Environment.Variables as Props;
    expect(JSON.stringify(vars.ORIGIN_SECRET)).toContain('{{resolve:secretsmanager:');
    expect(vars.BASE_DOMAIN).toBe('api.netintel-test.com');
  });
});

describe('cdk-nag AwsSolutions with custom hostnames', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'netintel-nag-ch-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('finds no unacknowledged error', () => {
    const { app } = enabledStack(outdir);
    const { errors, synthError } = nagErrors(app, outdir);
    expect(errors).toEqual([]);
    expect(synthError).toBeUndefined();
  });
});
