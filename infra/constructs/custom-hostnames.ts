import { Duration, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  CfnConnectionGroup,
  type CfnDistribution,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  type IOrigin,
  type IOriginRequestPolicy,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import type { CfnTable, ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { HOSTNAME_TIMEOUTS } from '../../functions/lib/custom-hostnames/hostname.js';
import { VIEWER_ADDRESS_HEADER } from '../../functions/lib/gateway/edge-origin.js';
import { routeByName } from '../../functions/routes.js';
import { NetintelFunction } from './netintel-function.js';
import { runOnSchedule } from './schedule.js';

/**
 * Viewer-request code of the API's default behaviour (every path but the exact /v1/geo), two jobs:
 * - copies the viewer's Host into X-Forwarded-Host, overwriting whatever the viewer sent there.
 *   CloudFront sends API Gateway its own Host (the origin needs it), so this is how the authorizer
 *   learns which hostname a request was addressed to (functions/lib/custom-hostnames/binding.ts);
 * - deletes every CloudFront-Viewer-* header. This behaviour forwards all viewer headers with the
 *   origin secret, and another spelling of the geo path (/v1/geo/, //v1/geo, ...) reaches the geo
 *   function through it: a viewer's own CloudFront-Viewer-Country must not arrive there looking
 *   like CloudFront's (functions/lib/gateway/edge-origin.ts refuses such requests too). Not used on
 *   the geo behaviour itself, where CloudFront writes those headers and a viewer-request function
 *   would see, and delete, the real ones;
 * - writes the viewer's IP address (event.viewer.ip) into X-Viewer-Address, overwriting whatever the
 *   viewer sent there: API Gateway's sourceIp is CloudFront's server, and the sign-in limits count
 *   the visitor (functions/lib/gateway/edge-origin.ts viewerAddress, believed with the origin secret).
 * Header names in the event are lower case (CloudFront Functions event structure).
 */
export const FORWARDED_HOST_CODE =
  "async function handler(event) { var r = event.request; var hs = r.headers; for (var n in hs) { if (n.indexOf('cloudfront-viewer-') === 0) { delete hs[n]; } } var h = hs.host; if (h) { hs['x-forwarded-host'] = { value: h.value }; } else { delete hs['x-forwarded-host']; } " +
  `var v = event.viewer && event.viewer.ip; if (v) { hs['${VIEWER_ADDRESS_HEADER.toLowerCase()}'] = { value: v }; } else { delete hs['${VIEWER_ADDRESS_HEADER.toLowerCase()}']; } return r; }`;

/** The CloudFront Function of FORWARDED_HOST_CODE, for the API default behaviour of a distribution. */
export class ForwardedHostFunction extends CloudFrontFunction {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      runtime: FunctionRuntime.JS_2_0,
      comment:
        'netintel: Host -> X-Forwarded-Host, viewer IP -> X-Viewer-Address; drop viewer-sent CloudFront-Viewer-*',
      code: FunctionCode.fromInline(FORWARDED_HOST_CODE),
    });
  }
}

/** CloudFront API actions the verifier calls (functions/lib/aws/cloudfront-tenants.ts). */
export const TENANT_ACTIONS = [
  'cloudfront:CreateDistributionTenant',
  'cloudfront:GetDistributionTenantByDomain',
  'cloudfront:GetManagedCertificateDetails',
  'cloudfront:UpdateDistributionTenant',
  'cloudfront:DeleteDistributionTenant',
] as const;

export interface CustomHostnamesProps {
  /** The API origin of the base distribution (with its X-Origin-Verify header). */
  apiOrigin: IOrigin;
  /** The base distribution's /v1/geo origin request policy (key, origin, viewer-location headers). */
  geoOriginRequestPolicy: IOriginRequestPolicy;
  forwardedHost: ForwardedHostFunction;
  /** The Accounts table: hostname records live there. */
  accounts: ITable;
  /** Variables the verifier gets besides its own (TABLE_*, DNS_SERVERS). */
  environment: Record<string, string>;
  /** Our own domain (BASE_DOMAIN): never claimable. */
  baseDomain: string;
}

/**
 * Custom hostnames (docs/custom-hostnames.md) in AWS, as CloudFront SaaS Manager resources:
 * - a multi-tenant distribution (connection mode tenant-only) with the base distribution's API
 *   behaviours and origin: one distribution tenant per custom hostname, each with a
 *   CloudFront-managed certificate, is created at runtime by the verifier;
 * - a connection group: its routing endpoint is the CNAME target customers are given;
 * - the verifier Lambda (functions/domain-verifier), every 15 minutes, allowed to read and write
 *   the Accounts table and to manage tenants of this distribution only.
 * The base distribution stays a standard one: a multi-tenant distribution has no domain of its own.
 */
export class CustomHostnames extends Construct {
  readonly distribution: Distribution;
  readonly connectionGroup: CfnConnectionGroup;
  readonly verifier: NetintelFunction;
  readonly rule: Rule;
  private readonly tenantResources: string[];
  private readonly managerEnvironment: Record<string, string>;

  constructor(scope: Construct, id: string, props: CustomHostnamesProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.connectionGroup = new CfnConnectionGroup(this, 'ConnectionGroup', {
      name: `${stack.stackName}-custom-hostnames`,
      enabled: true,
      ipv6Enabled: true,
    });

    const apiBehaviour = {
      origin: props.apiOrigin,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      // API Gateway compresses; CloudFront cannot without caching (edge.ts).
      compress: false,
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'netintel custom hostnames (multi-tenant: one tenant per hostname)',
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        ...apiBehaviour,
        // Forwards every viewer header, the X-Forwarded-Host the function adds included.
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        functionAssociations: [
          { function: props.forwardedHost, eventType: FunctionEventType.VIEWER_REQUEST },
        ],
      },
      additionalBehaviors: {
        // The geo policy is at the 10-header quota: X-Forwarded-Host does not fit until the quota
        // is raised, so /v1/geo on a custom hostname is served as the base address (docs/custom-hostnames.md).
        [routeByName('geo').path]: { ...apiBehaviour, originRequestPolicy: props.geoOriginRequestPolicy },
      },
    });
    const cfn = this.distribution.node.defaultChild as CfnDistribution;
    cfn.addPropertyOverride('DistributionConfig.ConnectionMode', 'tenant-only');
    // Set per connection group on multi-tenant distributions, refused on the distribution.
    cfn.addPropertyDeletionOverride('DistributionConfig.IPV6Enabled');

    const acks: [string, string][] = [
      [
        'AwsSolutions-CFR1',
        'The API serves callers worldwide; geolocation is what it sells, not what it restricts.',
      ],
      [
        'AwsSolutions-CFR2',
        'No WAF by default (a web ACL costs from $5/month plus per-request fees); keys, usage plans and per-account limits throttle abuse.',
      ],
      [
        'AwsSolutions-CFR3',
        'Every request reaches API Gateway, whose stage access log records it with the account; CloudFront standard logging (v2) can be added per deployment.',
      ],
      [
        'AwsSolutions-CFR4',
        'A tenant-only distribution has no domain or certificate of its own; each tenant gets a CloudFront-managed ACM certificate for its hostname.',
      ],
    ];
    for (const [ackId, reason] of acks) Validations.of(this.distribution).acknowledge({ id: ackId, reason });

    const distributionArn = stack.formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution',
      resourceName: this.distribution.distributionId,
    });
    const tenantsArn = stack.formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution-tenant',
      resourceName: '*',
    });

    this.tenantResources = [distributionArn, tenantsArn, this.connectionGroup.attrArn];
    this.managerEnvironment = {
      BASE_DOMAIN: props.baseDomain,
      CUSTOM_HOSTNAME_TARGET: this.connectionGroup.attrRoutingEndpoint,
      CUSTOM_HOSTNAME_DISTRIBUTION_ID: this.distribution.distributionId,
      CUSTOM_HOSTNAME_CONNECTION_GROUP_ID: this.connectionGroup.attrId,
    };
    this.verifier = new NetintelFunction(this, 'Verifier', {
      handler: 'domain-verifier',
      description: 'schedule:domain-verifier',
      memoryMb: 256,
      timeoutSeconds: 300,
      environment: { ...props.environment, ...this.managerEnvironment },
    });
    props.accounts.grantReadWriteData(this.verifier.fn);
    Validations.of(this.verifier).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.resolve((props.accounts.node.defaultChild as CfnTable).logicalId)}.Arn>/index/*]`,
      reason: "CDK's Accounts table grant also covers its byAccount index, which holds the same items.",
    });
    this.verifier.fn.addToRolePolicy(
      new PolicyStatement({ actions: [...TENANT_ACTIONS], resources: this.tenantResources }),
    );
    Validations.of(this.verifier).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${tenantsArnForNag(stack)}]`,
      reason:
        'Distribution tenants are created at runtime, one per custom hostname, so their ids are unknown at deploy time; the actions are limited to tenant management and the distribution and connection group are named.',
    });

    this.rule = runOnSchedule(this, 'Schedule', this.verifier, {
      description: 'netintel custom-hostname verification (DNS, certificate, removal)',
      every: Duration.minutes(HOSTNAME_TIMEOUTS.verifyEveryMinutes),
      retries: 0,
    });
  }

  /**
   * Lets a dashboard function add, check and remove custom hostnames without CloudFront access:
   * the variables for the records to show, and `scheduled` certificates (the verifier requests and
   * releases them). Naming the distribution would make a cycle: it fronts the API these functions serve.
   */
  allowDashboard(fn: NetintelFunction): void {
    fn.fn.addEnvironment('BASE_DOMAIN', this.managerEnvironment.BASE_DOMAIN!);
    fn.fn.addEnvironment('CUSTOM_HOSTNAME_TARGET', this.managerEnvironment.CUSTOM_HOSTNAME_TARGET!);
  }
}

/** The tenants ARN as cdk-nag prints it. */
function tenantsArnForNag(stack: Stack): string {
  const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
  return `arn:<AWS::Partition>:cloudfront::${account}:distribution-tenant/*`;
}
