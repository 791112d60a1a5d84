import { beforeAll, describe, expect, it } from '@jest/globals';
import { DASHBOARD_PATH, dashboardCsp, SITE_ALIASES } from '../../functions/api-reference/docs-site.js';
import { CLOUDFRONT_ORIGINS, DOCS_SITE_FUNCTION_CODE, SITE_PATHS } from '../../infra/constructs/edge.js';
import {
  type CfnResource,
  netintelStack,
  ofType,
  refId,
  type SynthesizedStack,
  synthesize,
  testApp,
} from './synth.js';

// The dashboard in the template: served by the distribution that serves /docs, from the docs bucket
// under dashboard/, with its own CSP (the jobs bucket's endpoint in connect-src); its page and its
// hashed files deployed in that order with their own caching; the jobs bucket taking the browser's
// list-file uploads (CORS).

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

let s: SynthesizedStack;
beforeAll(() => {
  s = synthesize();
});

const distribution = () =>
  props(ofType(s.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;
const behaviour = (path: string) =>
  (distribution().CacheBehaviors as Props[]).find((b) => b.PathPattern === path);
const jobsBucketId = () =>
  ofType(s.resources, 'AWS::S3::Bucket').find(([id]) => id.startsWith('JobPipelineBucket'))![0];
/** A BucketDeployment's custom resource by its construct id: [logical id, resource]. */
const deployment = (name: string) =>
  ofType(s.resources, 'Custom::CDKBucketDeployment').find(([id]) => id.startsWith(`Edge${name}`))!;

describe('dashboard', () => {
  it('/dashboard* comes from the docs bucket through the site function, with the dashboard’s own headers', () => {
    const dashboard = behaviour(`${DASHBOARD_PATH}*`)!;
    const docs = behaviour('/docs*')!;
    expect(dashboard.TargetOriginId).toBe(docs.TargetOriginId);
    expect(dashboard.FunctionAssociations).toEqual(docs.FunctionAssociations);
    expect(dashboard.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(dashboard.ResponseHeadersPolicyId).not.toEqual(docs.ResponseHeadersPolicyId);
    // The aliases are the site function's job: /dashboard and /dashboard/ need no behaviour of their own.
    expect(behaviour(DASHBOARD_PATH)).toBeUndefined();
    expect(behaviour(`${DASHBOARD_PATH}/`)).toBeUndefined();
    expect(SITE_PATHS.some((p) => p.startsWith(DASHBOARD_PATH))).toBe(false);
  });

  it("its CSP is the local server's with the jobs bucket's regional endpoint as the upload origin", () => {
    const id = refId(behaviour(`${DASHBOARD_PATH}*`)!.ResponseHeadersPolicyId)!;
    const security = props(s.resources[id]!).ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp = security.ContentSecurityPolicy.ContentSecurityPolicy as { 'Fn::Join': [string, unknown[]] };
    const parts = csp['Fn::Join'][1];
    expect(parts).toContainEqual({ Ref: jobsBucketId() });
    const rendered = parts
      .map((p) =>
        typeof p === 'string' ? p : (p as { Ref: string }).Ref === jobsBucketId() ? 'BUCKET' : 'X',
      )
      .join('')
      .replace(/XX$/, '');
    expect(rendered).toBe(dashboardCsp('https://BUCKET.s3.X.X'));
    expect(security.ContentSecurityPolicy.Override).toBe(true);
    expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    expect(security.ContentTypeOptions).toEqual({ Override: true });
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
  });

  it('the site function maps /dashboard and /dashboard/ to its index.html', async () => {
    const handler = new Function(`${DOCS_SITE_FUNCTION_CODE}; return handler;`)() as (
      event: unknown,
    ) => Promise<Props>;
    for (const uri of [DASHBOARD_PATH, `${DASHBOARD_PATH}/`]) {
      expect(SITE_ALIASES[uri]).toBe(`${DASHBOARD_PATH}/index.html`);
      expect((await handler({ request: { uri, method: 'GET', headers: {} } })).uri).toBe(
        `${DASHBOARD_PATH}/index.html`,
      );
    }
    const asset = '/dashboard/app-ABCDEFGH.js';
    expect((await handler({ request: { uri: asset, method: 'GET', headers: {} } })).uri).toBe(asset);
  });

  it('deploys the hashed files for good, then the page that names them, which each visit asks for again', () => {
    expect(ofType(s.resources, 'Custom::CDKBucketDeployment')).toHaveLength(3);
    const [filesId, filesResource] = deployment('DashboardFiles');
    const [, pageResource] = deployment('DashboardPage');
    const files = props(filesResource);
    const page = props(pageResource);
    expect(files).toMatchObject({
      DestinationBucketKeyPrefix: 'dashboard/',
      Exclude: ['index.html'],
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    expect(files.DistributionPaths).toBeUndefined();
    expect(page).toMatchObject({
      DestinationBucketKeyPrefix: 'dashboard/',
      Exclude: ['*'],
      Include: ['index.html'],
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionPaths: ['/dashboard', '/dashboard/', '/dashboard/index.html'],
    });
    expect((pageResource as CfnResource & { DependsOn?: string[] }).DependsOn).toContain(filesId);
    // The docs' sync would otherwise prune dashboard/ (its sources do not hold it).
    expect(props(deployment('DocsDeployment')[1]).Exclude).toEqual(['dashboard/*']);
  });

  it('the jobs bucket takes POSTs from CloudFront-served pages, and from the custom domain when there is one', () => {
    const cors = props(s.resources[jobsBucketId()]!).CorsConfiguration;
    expect(cors).toEqual({
      CorsRules: [{ AllowedMethods: ['POST'], AllowedOrigins: [CLOUDFRONT_ORIGINS], MaxAge: 3000 }],
    });
    const withDomain = synthesize(
      netintelStack(testApp(), {
        notifyFrom: 'notices@example.com',
        domainName: 'api.netintel-test.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/abc',
      }),
    );
    const [, bucket] = ofType(withDomain.resources, 'AWS::S3::Bucket').find(([id]) =>
      id.startsWith('JobPipelineBucket'),
    )!;
    expect(props(bucket).CorsConfiguration.CorsRules[0].AllowedOrigins).toEqual([
      CLOUDFRONT_ORIGINS,
      'https://api.netintel-test.com',
    ]);
    // Sign-in links may point at the custom domain: the functions that build them know it
    // (without it, a member on https://api.netintel-test.com/dashboard/ could not sign in).
    for (const name of ['dashboard-sign-in', 'dashboard-overview']) {
      const [, f] = ofType(withDomain.resources, 'AWS::Lambda::Function').find(
        ([, r]) => props(r).Description === `route:${name}`,
      )!;
      expect({ name, base: props(f).Environment.Variables.BASE_DOMAIN }).toEqual({
        name,
        base: 'api.netintel-test.com',
      });
    }
  });
});
