import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  AssetHashType,
  DefaultStackSynthesizer,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  type IOrigin,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type IBucket,
} from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  DASHBOARD_ASSET_CACHE_CONTROL,
  DASHBOARD_PAGE_CACHE_CONTROL,
  DASHBOARD_PATH,
  DOCS_CSP,
  DOCS_PATH,
  dashboardCsp,
  SITE_ALIASES,
  SITE_CACHE_CONTROL,
  SITE_REDIRECTS,
  siteFiles,
} from '../../functions/api-reference/docs-site.js';
import { ORIGIN_VERIFY_HEADER } from '../../functions/lib/gateway/edge-origin.js';
import { STAGE_NAME } from '../../functions/lib/gateway/gateway-settings.js';
import { routeByName } from '../../functions/routes.js';
import type { CustomDomain } from '../context.js';
import { PROJECT_ROOT } from '../project-root.js';
import { ForwardedHostFunction } from './custom-hostnames.js';
import { FUNCTION_LOG_RETENTION } from './observability.js';

/** The custom origin header CloudFront adds; its name comes from the code that checks it. */
export { ORIGIN_VERIFY_HEADER };

/**
 * Viewer headers CloudFront adds for GET /v1/geo. An origin request policy holds at most 10
 * headers by default (a CloudFront quota) and the geo route needs X-Api-Key, Origin and Referer for
 * its key and origin checks, which leaves 7. CloudFront-Viewer-Address is one of them: it is the
 * only trustworthy source of the visitor's IP (a viewer-supplied X-Forwarded-For ends up first in
 * the list CloudFront forwards). Time-Zone and ASN are left out: the function derives the time zone
 * from the coordinates and the ASN from the layer's ASN database. Raise the "Headers per origin
 * request policy" quota before adding them.
 */
export const GEO_VIEWER_HEADERS = [
  'CloudFront-Viewer-Address',
  'CloudFront-Viewer-Country',
  'CloudFront-Viewer-Country-Region',
  'CloudFront-Viewer-City',
  'CloudFront-Viewer-Postal-Code',
  'CloudFront-Viewer-Latitude',
  'CloudFront-Viewer-Longitude',
] as const;

/** Headers the geo route's key and origin checks read (authenticate.ts): key, Origin, Referer. */
export const GEO_REQUEST_HEADERS = ['X-Api-Key', 'Origin', 'Referer'] as const;

/** Where standard logs go in the access-log bucket when they are on (`-c cloudFrontLogs=true`). */
export const CLOUDFRONT_LOG_PREFIX = 'cloudfront/';

/**
 * The docs site's viewer-request function (CloudFront Functions, JS 2.0): `/` answers 302 to /docs,
 * and /docs, /docs/, /favicon.ico, /dashboard and /dashboard/ read the bucket's file of the same
 * table the local server uses (functions/api-reference/docs-site.ts).
 */
export const DOCS_SITE_FUNCTION_CODE =
  `var REDIRECTS = ${JSON.stringify(SITE_REDIRECTS)}; var ALIASES = ${JSON.stringify(SITE_ALIASES)}; ` +
  'async function handler(event) { var r = event.request; var to = REDIRECTS[r.uri]; ' +
  `if (to) { return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: to }, 'cache-control': { value: '${SITE_CACHE_CONTROL}' } } }; } ` +
  'var file = ALIASES[r.uri]; if (file) { r.uri = file; } return r; }';

/** Paths of the docs site besides DOCS_PATH* and DASHBOARD_PATH*: the redirect and the aliases outside them. */
export const SITE_PATHS = [...Object.keys(SITE_REDIRECTS), ...Object.keys(SITE_ALIASES)].filter(
  (p) => !p.startsWith(DOCS_PATH) && !p.startsWith(DASHBOARD_PATH),
);

/**
 * Origins the dashboard may be served from without a custom domain: the distribution's own
 * *.cloudfront.net name. The jobs bucket's CORS rule cannot name the distribution itself: the
 * distribution's response headers name the bucket (the dashboard's CSP), and CloudFormation would
 * have each wait for the other. The CSP, which guards the page, names the exact bucket; the CORS
 * rule only lets a browser post a file with a presigned policy, which any holder can post anyway.
 */
export const CLOUDFRONT_ORIGINS = 'https://*.cloudfront.net';

/** CloudFront's default quota of headers in one origin request policy. */
export const ORIGIN_REQUEST_POLICY_HEADER_QUOTA = 10;

export interface EdgeProps {
  restApi: RestApi;
  /** Value of X-Origin-Verify (a dynamic reference to the origin secret). */
  originVerifyValue: string;
  accessLogs: IBucket;
  /** The jobs bucket: the dashboard uploads list files to it from the browser (its CSP's connect-src). */
  jobsBucket: IBucket;
  /** Optional custom domain: with its ACM certificate (us-east-1) viewers get TLS 1.2 at least. */
  customDomain?: CustomDomain;
  /**
   * CloudFront standard (legacy) access logs into the access-log bucket. Off by default: that
   * delivery writes to S3 with ACLs and does not deliver to buckets in every opt-in region (the
   * CloudFront standard logging documentation lists the regions), so it would break `cdk deploy`
   * there. Every API request is also in the API Gateway stage's access log.
   */
  logs?: boolean;
}

/**
 * CloudFront in front of the API, the /docs page and the /dashboard app.
 *
 * Header forwarding, and why it takes two behaviours:
 * - CloudFront never forwards `Authorization` through an origin request policy (CreateOriginRequestPolicy
 *   rejects it); only a cache policy with the header in the cache key, or an "all viewer headers"
 *   origin request policy, can. A cache policy that keys on headers needs TTLs above 0, and any
 *   such policy lets CloudFront collapse simultaneous identical requests into one origin call:
 *   two visitors of the same site calling /v1/geo with the same publishable key would share one
 *   geolocation, and identical secret-key calls would be billed once. AWS: "If you want to prevent
 *   all request collapsing, you can use the managed cache policy CachingDisabled". So every API
 *   behaviour uses CachingDisabled.
 * - Default behaviour: CachingDisabled + the managed AllViewerExceptHostHeader policy, AWS's policy
 *   for API Gateway origins: every viewer header (Authorization, X-Api-Key, Origin, Referer,
 *   Content-Type, Content-Encoding, ...) and query string, except Host, which API Gateway needs to
 *   be its own domain.
 * - /v1/geo: "all viewer headers" policies cannot add CloudFront's viewer-location headers, so the
 *   geo route has its own behaviour with an allow-list policy: X-Api-Key, Origin, Referer, the
 *   location headers and all query strings (the `key` fallback). Authorization is not forwarded
 *   there: geo takes publishable keys only, so a secret key sent as a bearer token to /v1/geo is
 *   refused as a missing key (401) instead of wrong_key_type (403).
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  /** The API origin (with X-Origin-Verify), shared with the custom-hostname distribution. */
  readonly apiOrigin: IOrigin;
  /** Host -> X-Forwarded-Host (custom hostnames, rule 7), on the API's default behaviour. */
  readonly forwardedHost: ForwardedHostFunction;
  readonly geoOriginRequestPolicy: OriginRequestPolicy;
  readonly docsBucket: Bucket;
  /** https:// base URL viewers use: the custom domain when configured, else the distribution's. */
  readonly url: string;
  /** The custom domain the distribution serves (its alias), if any. */
  readonly customDomainName?: string;
  /** Where the dashboard's pages may come from, for the jobs bucket's CORS rule (JobPipeline). */
  readonly dashboardOrigins: string[];

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);

    // The stage's address spelled from the API's id and the stage's name, not RestApiOrigin (which
    // reads restApi.url, a reference to the stage): functions behind the API may depend on the
    // distribution (BASE_DOMAIN is its domain without -c domainName), and the stage depends on them
    // through its deployment. With the reference that was a cycle CloudFormation refuses to deploy.
    const stack = Stack.of(this);
    const apiOrigin = new HttpOrigin(
      `${props.restApi.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
      {
        originPath: `/${STAGE_NAME}`,
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
        customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originVerifyValue },
      },
    );
    this.apiOrigin = apiOrigin;
    // The managed AllViewerExceptHostHeader policy forwards every header of the viewer request as
    // the viewer-request function leaves it, X-Forwarded-Host included: no policy change needed.
    // Here it overwrites a viewer-sent X-Forwarded-Host with the real Host (the base domain), and
    // deletes viewer-sent CloudFront-Viewer-* headers: other spellings of /v1/geo land on this
    // behaviour with the origin secret (custom-hostnames.ts FORWARDED_HOST_CODE).
    this.forwardedHost = new ForwardedHostFunction(this, 'ForwardedHost');

    const geoHeaders = [...GEO_REQUEST_HEADERS, ...GEO_VIEWER_HEADERS];
    if (geoHeaders.length > ORIGIN_REQUEST_POLICY_HEADER_QUOTA) {
      throw new Error(
        `the geo origin request policy lists ${geoHeaders.length} headers; the quota is ${ORIGIN_REQUEST_POLICY_HEADER_QUOTA}`,
      );
    }
    this.geoOriginRequestPolicy = new OriginRequestPolicy(this, 'GeoOriginRequest', {
      comment: 'netintel /v1/geo: key, origin and viewer-location headers, all query strings',
      headerBehavior: OriginRequestHeaderBehavior.allowList(...geoHeaders),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    });

    this.docsBucket = new Bucket(this, 'DocsBucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 's3/docs/',
      // Emptied by the deployment below (retainOnDelete: false) before CloudFormation deletes it.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // The docs site: /docs and its files from the bucket, `/` a redirect to it, the favicon.
    const docsSite = new CloudFrontFunction(this, 'DocsSite', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'netintel: / -> 302 /docs; /docs, /docs/ -> index.html; /favicon.ico -> docs/favicon.svg',
      code: FunctionCode.fromInline(DOCS_SITE_FUNCTION_CODE),
    });
    // The page runs no inline script and reaches only this origin (DOCS_CSP); the rest are the
    // headers of CloudFront's managed SecurityHeadersPolicy, which has no CSP.
    const docsHeaders = new ResponseHeadersPolicy(this, 'DocsHeaders', {
      comment: 'netintel docs: Content-Security-Policy and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: DOCS_CSP, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: {
          referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const docsBehaviour = {
      origin: S3BucketOrigin.withOriginAccessControl(this.docsBucket),
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      responseHeadersPolicy: docsHeaders,
      functionAssociations: [{ function: docsSite, eventType: FunctionEventType.VIEWER_REQUEST }],
    };

    // The dashboard: the same bucket (under dashboard/) and site function, its own headers. Its CSP
    // adds the jobs bucket's regional endpoint, where presigned POSTs send list files (the SDK's
    // virtual-hosted form, https://<bucket>.s3.<region>.amazonaws.com), and sends no referrer.
    const uploadOrigin = `https://${props.jobsBucket.bucketName}.s3.${stack.region}.${stack.urlSuffix}`;
    const dashboardHeaders = new ResponseHeadersPolicy(this, 'DashboardHeaders', {
      comment: 'netintel dashboard: Content-Security-Policy and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: dashboardCsp(uploadOrigin), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const dashboardBehaviour = { ...docsBehaviour, responseHeadersPolicy: dashboardHeaders };

    this.customDomainName = props.customDomain?.domainName;
    const customDomain = props.customDomain
      ? {
          domainNames: [props.customDomain.domainName],
          certificate: Certificate.fromCertificateArn(this, 'Certificate', props.customDomain.certificateArn),
          minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {};

    const apiBehaviour = {
      origin: apiOrigin,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      // CloudFront compresses only under a cache policy with its Gzip/Brotli settings on, which it
      // refuses on a policy whose TTLs are all 0; a policy that may cache lets it collapse
      // simultaneous requests (see above). So API Gateway compresses (MINIMUM_COMPRESSION_SIZE in
      // functions/lib/gateway/gateway-settings.ts): with CachingDisabled CloudFront forwards
      // Accept-Encoding like any viewer header and passes the encoded answer through.
      compress: false,
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'netintel API and docs',
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      ...(props.logs
        ? { enableLogging: true, logBucket: props.accessLogs, logFilePrefix: CLOUDFRONT_LOG_PREFIX }
        : {}),
      ...customDomain,
      defaultBehavior: {
        ...apiBehaviour,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        functionAssociations: [{ function: this.forwardedHost, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [routeByName('geo').path]: { ...apiBehaviour, originRequestPolicy: this.geoOriginRequestPolicy },
        [`${DOCS_PATH}*`]: docsBehaviour,
        [`${DASHBOARD_PATH}*`]: dashboardBehaviour,
        ...Object.fromEntries(SITE_PATHS.map((path) => [path, docsBehaviour])),
      },
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'The API serves callers worldwide; geolocation is what it sells, not what it restricts.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR2',
      reason:
        'No WAF by default (a web ACL costs from $5/month plus per-request fees); keys, usage plans and per-account limits throttle abuse.',
    });
    if (!props.logs) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR3',
        reason:
          'Standard (legacy) logging is opt-in (-c cloudFrontLogs=true): its S3 delivery does not reach buckets in every opt-in region and would fail the deploy there. Every API request is logged by the API Gateway stage access log (with account, status and latency); /docs is static.',
      });
    }
    this.url = `https://${this.customDomainName ?? this.distribution.distributionDomainName}`;
    this.dashboardOrigins = [
      CLOUDFRONT_ORIGINS,
      ...(this.customDomainName ? [`https://${this.customDomainName}`] : []),
    ];
    if (!this.customDomainName) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without a custom domain CloudFront serves *.cloudfront.net with its default certificate, whose security policy cannot be raised; deploy with -c domainName=... -c certificateArn=... for TLSv1.2_2021.',
      });
    }

    // One handler (CDK's singleton) and its one log group serve the three deployments below.
    const deploymentLogs = new LogGroup(this, 'DocsDeploymentLogs', {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const dashboardPrefix = `${DASHBOARD_PATH.slice(1)}/`;
    // The docs site's files: Swagger UI's, our index and start script, the favicon. Its sync leaves
    // dashboard/ alone (an excluded path is neither copied nor pruned).
    const docsDeployment = new BucketDeployment(this, 'DocsDeployment', {
      destinationBucket: this.docsBucket,
      sources: siteFiles().map((f) => Source.data(f.path.slice(1), f.body().toString())),
      exclude: [`${dashboardPrefix}*`],
      cacheControl: [CacheControl.fromString(SITE_CACHE_CONTROL)],
      distribution: this.distribution,
      distributionPaths: [`${DOCS_PATH}*`, ...SITE_PATHS],
      retainOnDelete: false,
      memoryLimit: 256,
      logGroup: deploymentLogs,
    });
    // The dashboard in two steps, as its files are cached: the hashed files first (kept for good),
    // then the page that names them (asked for again on every visit), so no page ever names a file
    // not yet there. Only the page's paths are invalidated: new files have new names.
    const dashboard = dashboardSource();
    const dashboardFiles = new BucketDeployment(this, 'DashboardFiles', {
      destinationBucket: this.docsBucket,
      destinationKeyPrefix: dashboardPrefix,
      sources: [dashboard],
      exclude: ['index.html'],
      cacheControl: [CacheControl.fromString(DASHBOARD_ASSET_CACHE_CONTROL)],
      retainOnDelete: false,
      memoryLimit: 256,
      logGroup: deploymentLogs,
    });
    const dashboardPage = new BucketDeployment(this, 'DashboardPage', {
      destinationBucket: this.docsBucket,
      destinationKeyPrefix: dashboardPrefix,
      sources: [dashboard],
      exclude: ['*'],
      include: ['index.html'],
      cacheControl: [CacheControl.fromString(DASHBOARD_PAGE_CACHE_CONTROL)],
      distribution: this.distribution,
      distributionPaths: [DASHBOARD_PATH, `${DASHBOARD_PATH}/`, `${DASHBOARD_PATH}/index.html`],
      retainOnDelete: false,
      memoryLimit: 256,
      logGroup: deploymentLogs,
    });
    dashboardPage.node.addDependency(dashboardFiles);
    // CDK's own deployment Lambda (a stack-level singleton): runtime, role and grants are aws-cdk-lib's.
    const deploymentHandler = docsDeployment.handlerRole.node.scope;
    if (deploymentHandler) {
      const docsBucketId = Stack.of(this).resolve((this.docsBucket.node.defaultChild as CfnBucket).logicalId);
      const s3 =
        'BucketDeployment copies the docs from the CDK asset bucket into the docs bucket (CDK grant).';
      const acks: [string, string][] = [
        [
          'AwsSolutions-L1',
          'BucketDeployment handler: aws-cdk-lib fixes its Python runtime; it runs only at deploy time.',
        ],
        [
          'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          "BucketDeployment handler role: aws-cdk-lib's, not configurable.",
        ],
        ['AwsSolutions-IAM5[Action::s3:GetObject*]', s3],
        ['AwsSolutions-IAM5[Action::s3:GetBucket*]', s3],
        ['AwsSolutions-IAM5[Action::s3:List*]', s3],
        ['AwsSolutions-IAM5[Action::s3:DeleteObject*]', s3],
        ['AwsSolutions-IAM5[Action::s3:Abort*]', s3],
        [`AwsSolutions-IAM5[Resource::${cdkAssetObjects(Stack.of(this))}]`, s3],
        [`AwsSolutions-IAM5[Resource::<${docsBucketId}.Arn>/*]`, s3],
        [
          'AwsSolutions-IAM5[Resource::*]',
          "cloudfront:CreateInvalidation/GetInvalidation (invalidates /docs* after a deploy) have no resource-level scoping in CDK's grant.",
        ],
      ];
      for (const [id, reason] of acks) Validations.of(deploymentHandler).acknowledge({ id, reason });
    }
  }
}

/**
 * The dashboard's built files (web/dashboard/build.ts). CDK's bundling hooks are synchronous and
 * esbuild's plugins are not, so the build runs as a process of its own (web/dashboard/write.ts),
 * locally, at synth: no Docker. The asset is keyed on its output, which also depends on code
 * outside web/dashboard (the API's CSV reader).
 */
function dashboardSource(): ISource {
  return Source.asset(join(PROJECT_ROOT, 'web/dashboard'), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local build below always runs or fails the synth.
      image: DockerImage.fromRegistry('node:22-alpine'),
      local: {
        tryBundle(outputDir: string) {
          const run = spawnSync(
            process.execPath,
            ['--import', 'tsx', join(PROJECT_ROOT, 'web/dashboard/write.ts'), outputDir],
            { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
          );
          if (run.status !== 0) throw new Error(`the dashboard build failed (exit ${run.status})`);
          return true;
        },
      },
    },
  });
}

/** The CDK asset bucket's objects as cdk-nag prints them (account/region concrete when known). */
function cdkAssetObjects(stack: Stack): string {
  const pseudo = (value: string, name: string) => (Token.isUnresolved(value) ? `<AWS::${name}>` : value);
  const qualifier: unknown = stack.node.tryGetContext('@aws-cdk/core:bootstrapQualifier');
  const q = typeof qualifier === 'string' ? qualifier : DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  return `arn:<AWS::Partition>:s3:::cdk-${q}-assets-${pseudo(stack.account, 'AccountId')}-${pseudo(stack.region, 'Region')}/*`;
}
