import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { BUCKET, JOB_QUEUE, TABLES } from '../functions/lib/aws/resources.js';
import { ROUTES } from '../functions/routes.js';
import { AccessLogs } from './constructs/access-logs.js';
import { Api } from './constructs/api.js';
import { CustomHostnames } from './constructs/custom-hostnames.js';
import { DataLayer } from './constructs/data-layer.js';
import { DataRefresh } from './constructs/data-refresh.js';
import { Edge } from './constructs/edge.js';
import { JobPipeline } from './constructs/job-pipeline.js';
import { Observability } from './constructs/observability.js';
import { Secrets } from './constructs/secrets.js';
import { Tables } from './constructs/tables.js';
import { OUTPUTS } from './outputs.js';

/** Placeholder sender until `-c notifyFrom=` names a verified SES identity (notices then fail, logged). */
export const DEFAULT_NOTIFY_FROM = 'no-reply@example.invalid';

export interface NetintelStackProps extends StackProps {
  /** Directory zipped as the data layer (its `data/` folder is /opt/data): `layers/` in the app. */
  dataLayerDir: string;
  /** Verified SES identity usage notices are sent from (NOTIFY_FROM). */
  notifyFrom?: string;
  /** Comma-separated resolver IPs for email checks (DNS_SERVERS); default: the VPC-less Lambda resolver. */
  dnsServers?: string;
  /** Custom domain for the distribution, with an ACM certificate in us-east-1. */
  domainName?: string;
  certificateArn?: string;
  /**
   * Custom hostnames for pro/business accounts (spec rule 7): the multi-tenant distribution, its
   * connection group and the scheduled verifier. Default: the `customHostnames` context (`-c
   * customHostnames=true`), else off.
   */
  customHostnames?: boolean;
}

export class NetintelStack extends Stack {
  readonly tables: Tables;
  readonly dataLayer: DataLayer;
  readonly pipeline: JobPipeline;
  readonly api: Api;
  readonly edge: Edge;
  readonly observability: Observability;
  readonly refresh: DataRefresh;
  readonly customHostnames?: CustomHostnames;

  constructor(scope: Construct, id: string, props: NetintelStackProps) {
    super(scope, id, props);
    const notifyFrom = props.notifyFrom ?? DEFAULT_NOTIFY_FROM;

    const accessLogs = new AccessLogs(this, 'AccessLogs');
    this.tables = new Tables(this, 'Tables');
    const secrets = new Secrets(this, 'Secrets');
    this.dataLayer = new DataLayer(this, 'DataLayer', { assetDir: props.dataLayerDir });

    const environment: Record<string, string> = {
      ...this.tables.environment(),
      NOTIFY_FROM: notifyFrom,
      ...(props.dnsServers ? { DNS_SERVERS: props.dnsServers } : {}),
    };
    this.pipeline = new JobPipeline(this, 'JobPipeline', {
      tables: this.tables,
      dataLayer: this.dataLayer,
      accessLogs: accessLogs.bucket,
      environment,
    });
    this.api = new Api(this, 'Api', {
      tables: this.tables,
      pipeline: this.pipeline,
      dataLayer: this.dataLayer,
      secrets,
      environment: { ...environment, ...this.pipeline.environment() },
      notifyFrom,
    });
    // Every 6 hours: security lists, disposable-email lists and MX hosts, published as versions
    // under data/ of the jobs bucket; the functions with the data layer follow them (hot swap).
    this.refresh = new DataRefresh(this, 'DataRefresh', {
      bucket: this.pipeline.bucket,
      dataLayer: this.dataLayer,
      environment,
    });
    // Every function with the data layer follows the refreshed versions, the job processor included
    // (a list job must flag the same disposable domains as /v1/email/batch).
    const dataFunctions = [
      ...ROUTES.filter((r) => r.usesDataLayer).map((r) => this.api.routeFunctions[r.name]!),
      this.pipeline.processor,
    ];
    for (const dataFn of dataFunctions) {
      for (const [k, v] of Object.entries(this.refresh.consumerEnvironment())) dataFn.fn.addEnvironment(k, v);
      this.refresh.grantReadData(dataFn.fn, dataFn);
    }
    this.edge = new Edge(this, 'Edge', {
      restApi: this.api.restApi,
      originVerifyValue: secrets.originVerifyValue(),
      accessLogs: accessLogs.bucket,
      domainName: props.domainName,
      certificateArn: props.certificateArn,
    });

    const context: unknown = this.node.tryGetContext('customHostnames');
    if (props.customHostnames ?? (context === true || context === 'true')) {
      // Our own domain: the custom domain when there is one, else the distribution's.
      const baseDomain = props.domainName ?? this.edge.distribution.distributionDomainName;
      this.customHostnames = new CustomHostnames(this, 'CustomHostnames', {
        apiOrigin: this.edge.apiOrigin,
        geoOriginRequestPolicy: this.edge.geoOriginRequestPolicy,
        forwardedHost: this.edge.forwardedHost,
        accounts: this.tables.byId.Accounts,
        environment,
        baseDomain,
      });
      // The authorizer binds requests to hostnames: it believes X-Forwarded-Host only with the
      // origin secret, and skips the lookup for our own domain (the distribution's *.cloudfront.net
      // is skipped by name, so no reference to the distribution, which depends on the API).
      this.api.authorizer.fn.addEnvironment('ORIGIN_SECRET', secrets.originVerifyValue());
      if (props.domainName) this.api.authorizer.fn.addEnvironment('BASE_DOMAIN', props.domainName);
      const outputs: [string, string, string][] = [
        [
          OUTPUTS.customHostnameTarget,
          this.customHostnames.connectionGroup.attrRoutingEndpoint,
          'CNAME target for custom hostnames (CUSTOM_HOSTNAME_TARGET)',
        ],
        [
          OUTPUTS.customHostnameDistributionId,
          this.customHostnames.distribution.distributionId,
          'Multi-tenant distribution of custom hostnames',
        ],
        [
          OUTPUTS.customHostnameConnectionGroupId,
          this.customHostnames.connectionGroup.attrId,
          'Its connection group',
        ],
        [OUTPUTS.baseDomain, baseDomain, 'BASE_DOMAIN: never claimable as a custom hostname'],
      ];
      for (const [key, value, description] of outputs) new CfnOutput(this, key, { value, description });
    }

    const functions: Record<string, IFunction> = {
      authorizer: this.api.authorizer.fn,
      ...Object.fromEntries(Object.entries(this.api.routeFunctions).map(([name, f]) => [name, f.fn])),
      openapi: this.api.openapi.fn,
      'job-processor': this.pipeline.processor.fn,
      'job-dlq': this.pipeline.dlqConsumer.fn,
      'job-sweeper': this.pipeline.sweeper.fn,
      ...(this.customHostnames ? { 'domain-verifier': this.customHostnames.verifier.fn } : {}),
    };
    this.observability = new Observability(this, 'Observability', {
      functions,
      restApi: this.api.restApi,
      dlq: this.pipeline.dlq,
    });

    // Outputs are created on the stack itself so their logical ids are exactly these keys.
    new CfnOutput(this, OUTPUTS.apiUrl, {
      value: this.edge.url,
      description: 'Public API base URL (CloudFront); /docs is the reference page',
    });
    new CfnOutput(this, OUTPUTS.restApiUrl, {
      value: this.api.restApi.url,
      description: 'API Gateway stage URL behind CloudFront (geo headers only arrive through ApiUrl)',
    });
    for (const def of TABLES) {
      new CfnOutput(this, OUTPUTS.table(def.id), {
        value: this.tables.byId[def.id].tableName,
        description: `${def.envVar}: ${def.purpose}`,
      });
    }
    new CfnOutput(this, OUTPUTS.jobsBucket, {
      value: this.pipeline.bucket.bucketName,
      description: BUCKET.envVar,
    });
    new CfnOutput(this, OUTPUTS.jobsQueueUrl, {
      value: this.pipeline.queue.queueUrl,
      description: JOB_QUEUE.envVar,
    });
    new CfnOutput(this, OUTPUTS.jobsDlqUrl, {
      value: this.pipeline.dlq.queueUrl,
      description: 'Dead-letter queue of job chunks (drained by the job-dlq function)',
    });
    new CfnOutput(this, OUTPUTS.dashboard, { value: this.observability.dashboard.dashboardName });
  }
}
