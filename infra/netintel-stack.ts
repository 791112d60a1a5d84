import { Annotations, Aspects, CfnOutput, CfnParameter, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { BUCKET, JOB_QUEUE, TABLES, WEBHOOK_QUEUE } from '../functions/lib/aws/resources.js';
import { ROUTES, type Route } from '../functions/routes.js';
import { AccessLogs } from './constructs/access-logs.js';
import { Api } from './constructs/api.js';
import { CustomHostnames } from './constructs/custom-hostnames.js';
import { DataLayer } from './constructs/data-layer.js';
import { DataRefresh } from './constructs/data-refresh.js';
import { Edge } from './constructs/edge.js';
import { JobPipeline } from './constructs/job-pipeline.js';
import { type NetintelFunction, tracingOn } from './constructs/netintel-function.js';
import { AlarmActions, Observability } from './constructs/observability.js';
import { Secrets } from './constructs/secrets.js';
import { Tables } from './constructs/tables.js';
import { WebhookPipeline } from './constructs/webhook-pipeline.js';
import {
  type ContextFlag,
  type ContextKey,
  type CustomDomain,
  checkContextKeys,
  checkDnsServers,
  checkEmailAddress,
  customDomainOf,
  EMAIL_ADDRESS,
  parseFlag,
  parseText,
  StackConfigurationError,
} from './context.js';
import { type IpDataSources, ipDataEnvironment, ipDataSourcesOf } from './ip-data-sources.js';
import { OUTPUTS } from './outputs.js';
import {
  parseReservedConcurrency,
  type ReservableFunction,
  type ReservedConcurrency,
} from './reserved-concurrency.js';

/**
 * Usage notices need a sender the deployer owns and has verified in SES; a placeholder would only
 * make every notice fail after deploy. Without `-c notifyFrom=` the template asks for it as the
 * NotifyFrom parameter, which has no default: `npx cdk synth` works offline, and `cdk deploy`
 * cannot go on without a sender.
 */
export const NOTIFY_FROM_REQUIRED =
  'netintel needs the address usage notices are sent from: deploy with -c notifyFrom=usage@your-domain.example ' +
  'or --parameters NotifyFrom=usage@your-domain.example (an SES-verified identity; docs/deploy.md)';

export { StackConfigurationError };

/** A text context value, undefined when unset or empty (infra/context.ts parseText). */
function contextString(scope: Construct, key: ContextKey): string | undefined {
  return parseText(key, scope.node.tryGetContext(key));
}

/** An on/off context value, false when unset; anything but true or false is refused (parseFlag). */
function contextFlag(scope: Construct, key: ContextFlag): boolean {
  return parseFlag(key, scope.node.tryGetContext(key)) ?? false;
}

/** What the stack is asked for, props before context, every value checked (StackConfigurationError). */
interface Settings {
  /** The sender given (prop or context); without one the template asks for it as a parameter. */
  notifyFrom?: string;
  alarmEmail?: string;
  dnsServers?: string;
  customDomain?: CustomDomain;
  apiGatewayCloudWatchRole: boolean;
  cloudFrontLogs: boolean;
  customHostnames: boolean;
  reserved: ReservedConcurrency;
  ipDataSources: IpDataSources;
}

/**
 * Every setting of the stack, read and checked before anything is built: a typo in a key or a value
 * fails the synth at once, not after the ~40 s of bundling the functions take.
 */
function settingsOf(scope: Construct, props: NetintelStackProps): Settings {
  checkContextKeys(scope.node.getAllContext());
  tracingOn(scope); // read again by every function; checked here first
  const text = (key: ContextKey & keyof NetintelStackProps) =>
    (props[key] as string | undefined) || contextString(scope, key);
  const notifyFrom = text('notifyFrom');
  const alarmEmail = text('alarmEmail');
  const dnsServers = text('dnsServers');
  const settings: Settings = {
    notifyFrom: notifyFrom && checkEmailAddress('notifyFrom', notifyFrom, NOTIFY_FROM_REQUIRED),
    alarmEmail:
      alarmEmail &&
      checkEmailAddress(
        'alarmEmail',
        alarmEmail,
        'The alarm topic mails it: deploy with -c alarmEmail=ops@your-domain.example, or without it for no subscriber (docs/deploy.md)',
      ),
    dnsServers: dnsServers && checkDnsServers(dnsServers),
    customDomain: customDomainOf(text('domainName'), text('certificateArn')),
    apiGatewayCloudWatchRole:
      props.apiGatewayCloudWatchRole ?? contextFlag(scope, 'apiGatewayCloudWatchRole'),
    cloudFrontLogs: props.cloudFrontLogs ?? contextFlag(scope, 'cloudFrontLogs'),
    customHostnames: props.customHostnames ?? contextFlag(scope, 'customHostnames'),
    reserved: {},
    ipDataSources: ipDataSourcesOf(props, (key) => contextString(scope, key)),
  };
  // Plain errors from the parsers of their own modules: a wrong source or a missing secret, a
  // reservation that names no function.
  try {
    settings.reserved = parseReservedConcurrency(
      props.reservedConcurrency ?? scope.node.tryGetContext('reservedConcurrency'),
    );
    ipDataEnvironment(settings.ipDataSources);
  } catch (error) {
    throw new StackConfigurationError((error as Error).message);
  }
  return settings;
}

/**
 * The IP data sources of the data refresh (infra/ip-data-sources.ts): each prop, else its context
 * value (`-c geoCitySource=maxmind -c maxmindSecret=netintel/maxmind`, ...).
 */
export interface NetintelStackProps extends StackProps, IpDataSources {
  /** Directory zipped as the data layer (its `data/` folder is /opt/data): `layers/` in the app. */
  dataLayerDir: string;
  /** Verified SES identity usage notices are sent from (NOTIFY_FROM). Required: prop or `-c notifyFrom=`. */
  notifyFrom?: string;
  /** E-mail address the alarm topic notifies (confirm the subscription mail). Default: `-c alarmEmail=`. */
  alarmEmail?: string;
  /**
   * Set the account's regional API Gateway CloudWatch logging role (shared by every API of the
   * account in the region). Default: the `apiGatewayCloudWatchRole` context, else off.
   */
  apiGatewayCloudWatchRole?: boolean;
  /**
   * Comma-separated resolver IPs (optionally with ports) for email checks (DNS_SERVERS); default: the
   * `dnsServers` context, else the VPC-less Lambda resolver.
   */
  dnsServers?: string;
  /**
   * Custom domain for the distribution, with an ACM certificate in us-east-1: both or neither
   * (default: the `domainName` and `certificateArn` context).
   */
  domainName?: string;
  certificateArn?: string;
  /**
   * Custom hostnames for pro/business accounts (docs/custom-hostnames.md): the multi-tenant distribution, its
   * connection group and the scheduled verifier. Default: the `customHostnames` context (`-c
   * customHostnames=true`), else off.
   */
  customHostnames?: boolean;
  /**
   * CloudFront standard logs into the access-log bucket (edge.ts says why they are opt-in).
   * Default: the `cloudFrontLogs` context (`-c cloudFrontLogs=true`), else off.
   */
  cloudFrontLogs?: boolean;
  /**
   * Reserved concurrency for the authorizer and the browser routes (infra/reserved-concurrency.ts):
   * `true` for the defaults, or numbers per function. Default: the `reservedConcurrency` context
   * (`-c reservedConcurrency=true` or `-c reservedConcurrency=authorizer=150,geo=40`), else none.
   */
  reservedConcurrency?: ReservedConcurrency | boolean;
}

export class NetintelStack extends Stack {
  readonly tables: Tables;
  readonly dataLayer: DataLayer;
  readonly pipeline: JobPipeline;
  readonly webhooks: WebhookPipeline;
  readonly api: Api;
  readonly edge: Edge;
  readonly observability: Observability;
  readonly refresh: DataRefresh;
  readonly customHostnames?: CustomHostnames;

  /** The sender as a deploy-time parameter with no default, for a synth without `-c notifyFrom=`. */
  private notifyFromParameter(): string {
    const parameter = new CfnParameter(this, 'NotifyFrom', {
      type: 'String',
      allowedPattern: EMAIL_ADDRESS.source,
      constraintDescription: 'an e-mail address verified in SES',
      description:
        'The SES-verified address usage notices are sent from (or synthesize with -c notifyFrom=).',
    });
    Annotations.of(this).addWarningV2('netintel:notifyFrom', NOTIFY_FROM_REQUIRED);
    return parameter.valueAsString;
  }

  constructor(scope: Construct, id: string, props: NetintelStackProps) {
    super(scope, id, props);
    const settings = settingsOf(this, props);
    const notifyFrom = settings.notifyFrom ?? this.notifyFromParameter();
    const ipDataSources = settings.ipDataSources;

    const accessLogs = new AccessLogs(this, 'AccessLogs');
    this.tables = new Tables(this, 'Tables');
    const secrets = new Secrets(this, 'Secrets');
    this.dataLayer = new DataLayer(this, 'DataLayer', { assetDir: props.dataLayerDir });

    const baseEnvironment: Record<string, string> = {
      ...this.tables.environment(),
      NOTIFY_FROM: notifyFrom,
      ...(settings.dnsServers ? { DNS_SERVERS: settings.dnsServers } : {}),
    };
    // Webhooks first: every function gets the deliveries queue's URL (a name, not a permission; only
    // the functions that announce events or manage endpoints may send to it, allowAnnounce below and
    // in Api). WEBHOOKS_ALLOW_LOOPBACK is never set here: deployed webhooks go to public hosts only.
    this.webhooks = new WebhookPipeline(this, 'WebhookPipeline', {
      tables: this.tables,
      environment: baseEnvironment,
      notifyFrom,
    });
    const environment: Record<string, string> = { ...baseEnvironment, ...this.webhooks.environment() };
    this.pipeline = new JobPipeline(this, 'JobPipeline', {
      tables: this.tables,
      dataLayer: this.dataLayer,
      accessLogs: accessLogs.bucket,
      environment,
    });
    // A list job's end is announced as job.completed or job.failed: by the processor that settles its
    // last chunk, the DLQ consumer that marks it failed, the sweep that settles what a dead process left.
    for (const announcer of [this.pipeline.processor, this.pipeline.dlqConsumer, this.pipeline.sweeper]) {
      this.webhooks.allowAnnounce(announcer);
    }
    this.api = new Api(this, 'Api', {
      tables: this.tables,
      pipeline: this.pipeline,
      webhooks: this.webhooks,
      dataLayer: this.dataLayer,
      secrets,
      environment: { ...environment, ...this.pipeline.environment() },
      notifyFrom,
      cloudWatchRole: settings.apiGatewayCloudWatchRole,
    });
    const reservable: Record<ReservableFunction, NetintelFunction> = {
      authorizer: this.api.authorizer,
      geo: this.api.routeFunctions.geo!,
      'email-validate': this.api.routeFunctions['email-validate']!,
    };
    for (const [name, executions] of Object.entries(settings.reserved) as [ReservableFunction, number][]) {
      reservable[name].reserveConcurrency(executions);
    }
    // At deploy and every 6 hours: security lists, disposable-email lists and MX hosts under data/,
    // the IP data (the deployer's sources) under ip-data/ of the jobs bucket, published as versions;
    // the functions with the data layer follow them (hot swap).
    this.refresh = new DataRefresh(this, 'DataRefresh', {
      bucket: this.pipeline.bucket,
      dataLayer: this.dataLayer,
      environment,
      sources: ipDataSources,
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
      jobsBucket: this.pipeline.bucket,
      customDomain: settings.customDomain,
      logs: settings.cloudFrontLogs,
    });
    // The dashboard posts list files to the jobs bucket from the browser.
    this.pipeline.allowBrowserUploads(this.edge.dashboardOrigins);
    // Sign-in links point at our own names only (functions/lib/aws/services.ts dashboardUrl): the
    // distribution's, and the custom domain when there is one.
    if (this.edge.customDomainName) {
      for (const route of ROUTES.filter((r: Route) => r.access.originSecret))
        this.api.routeFunctions[route.name]!.fn.addEnvironment('BASE_DOMAIN', this.edge.customDomainName);
    }

    if (settings.customHostnames) {
      // Our own domain: the custom domain the distribution serves when there is one, else the distribution's.
      const baseDomain = this.edge.customDomainName ?? this.edge.distribution.distributionDomainName;
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
      if (this.edge.customDomainName) {
        this.api.authorizer.fn.addEnvironment('BASE_DOMAIN', this.edge.customDomainName);
      }
      for (const name of [
        'dashboard-hostnames-add',
        'dashboard-hostnames-check',
        'dashboard-hostnames-remove',
      ]) {
        this.customHostnames.allowDashboard(this.api.routeFunctions[name]!);
      }
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

    // By area: the API's (routes and authorizers) and the workers' (queues and schedules). The data
    // refresh is not among them: it has alarms of its own (DataRefresh).
    const functions: Record<string, Record<string, IFunction>> = {
      api: {
        authorizer: this.api.authorizer.fn,
        'session-authorizer': this.api.sessionAuthorizer.fn,
        ...Object.fromEntries(Object.entries(this.api.routeFunctions).map(([name, f]) => [name, f.fn])),
      },
      workers: {
        'job-processor': this.pipeline.processor.fn,
        'job-dlq': this.pipeline.dlqConsumer.fn,
        'job-sweeper': this.pipeline.sweeper.fn,
        'webhook-delivery': this.webhooks.delivery.fn,
        'webhook-sweeper': this.webhooks.sweeper.fn,
        ...(this.customHostnames ? { 'domain-verifier': this.customHostnames.verifier.fn } : {}),
      },
    };
    this.observability = new Observability(this, 'Observability', {
      functions,
      authorizer: this.api.authorizer.fn,
      restApi: this.api.restApi,
      dlq: this.pipeline.dlq,
      webhookDlq: this.webhooks.dlq,
      // The groups the billed routes log to (the API's one group), each once.
      usageLogGroups: [
        ...new Set(
          ROUTES.filter((r) => r.billing.per !== 'none').map(
            (r) => this.api.routeFunctions[r.name]!.logGroup,
          ),
        ),
      ],
      accessLogs: this.api.accessLogs,
      tables: this.tables.byId,
      alarmEmail: settings.alarmEmail,
    });
    // Every alarm of the stack notifies the alarm topic when it fires and when it recovers.
    Aspects.of(this).add(new AlarmActions(this.observability.alarmTopic));

    // Outputs are created on the stack itself so their logical ids are exactly these keys.
    new CfnOutput(this, OUTPUTS.apiUrl, {
      value: this.edge.url,
      description: 'Public API base URL (CloudFront); /docs is the reference page',
    });
    new CfnOutput(this, OUTPUTS.restApiUrl, {
      value: this.api.restApi.url,
      description:
        'API Gateway stage URL: for backends with a secret key, $1.00 a million calls less than ApiUrl (geo headers only arrive through ApiUrl)',
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
    new CfnOutput(this, OUTPUTS.webhooksQueueUrl, {
      value: this.webhooks.queue.queueUrl,
      description: WEBHOOK_QUEUE.envVar,
    });
    new CfnOutput(this, OUTPUTS.webhooksDlqUrl, {
      value: this.webhooks.dlq.queueUrl,
      description: 'Dead-letter queue of webhook deliveries (no consumer: redrive or purge it)',
    });
    new CfnOutput(this, OUTPUTS.dashboard, { value: this.observability.dashboard.dashboardName });
    new CfnOutput(this, OUTPUTS.alarmTopic, {
      value: this.observability.alarmTopic.topicArn,
      description: 'SNS topic every alarm notifies (subscribe more endpoints to it as needed)',
    });
    for (const [planId, usagePlan] of Object.entries(this.api.usagePlans)) {
      new CfnOutput(this, OUTPUTS.usagePlanId(planId), {
        value: usagePlan.usagePlanId,
        description: `Usage plan of plan ${planId}: account create puts the account's own API key in it`,
      });
    }
  }
}
