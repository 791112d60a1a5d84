import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type CfnFunction,
  Function as LambdaFunction,
  LoggingFormat,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerEntry } from '../../functions/routes.js';
import { LAMBDA_ARCHITECTURE, LAMBDA_RUNTIME, lambdaCode } from '../bundling.js';
import { PROJECT_ROOT } from '../project-root.js';
import { FUNCTION_LOG_RETENTION } from './observability.js';

/**
 * Whether the stack traces with X-Ray: on unless the deployer turns it off (`-c tracing=false`).
 * Off, no function loads the X-Ray SDK at its cold start (functions/lib/aws/tracing.ts), the API
 * stage records no traces, and nothing is spent on X-Ray.
 */
export function tracingOn(scope: Construct): boolean {
  const value: unknown = scope.node.tryGetContext('tracing');
  return !(value === false || value === 'false');
}

export interface NetintelFunctionProps {
  /** Folder under functions/ holding handler.ts. */
  handler: string;
  /** Stable marker the infra tests find functions by: `route:<name>`, `authorizer`, `queue:<name>`. */
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
}

/**
 * Every Lambda of the stack, built one way: ESM bundle split at its dynamic imports (infra/bundling.ts), newest Node runtime on
 * arm64, active tracing unless turned off (Powertools Tracer, functions/lib/aws/tracing.ts), JSON logs into its own
 * log group with the retention Observability sets, and a role that may write to that log group
 * only (no AWSLambdaBasicExecutionRole, whose `logs:*` on `*` cdk-nag IAM4 rightly flags).
 */
export class NetintelFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: NetintelFunctionProps) {
    super(scope, id);
    const tracing = tracingOn(this);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `netintel ${props.description}`,
    });
    this.logGroup.grantWrite(role);

    this.fn = new LambdaFunction(this, 'Function', {
      code: lambdaCode(join(PROJECT_ROOT, handlerEntry(props.handler)), props.handler),
      handler: 'index.handler',
      runtime: LAMBDA_RUNTIME,
      architecture: LAMBDA_ARCHITECTURE,
      memorySize: props.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds),
      description: props.description,
      role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      // No platform START/REPORT lines (about 650 bytes an invocation, two invocations a call with
      // the authorizer): duration, errors and throttles are Lambda's own metrics, and traces have the
      // rest. A platform warning or error is still logged.
      systemLogLevelV2: SystemLogLevel.WARN,
      tracing: tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: {
        POWERTOOLS_SERVICE_NAME: 'netintel',
        POWERTOOLS_METRICS_NAMESPACE: 'netintel',
        // X-Ray (functions/lib/aws/tracing.ts): responses can hold email addresses and error
        // messages can quote what the caller sent, so neither is recorded; a failure carries its
        // error code instead. Tracing off: the Tracer is never loaded (config.ts tracingEnabled).
        ...(tracing
          ? { POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false', POWERTOOLS_TRACER_CAPTURE_ERROR: 'false' }
          : { POWERTOOLS_TRACE_ENABLED: 'false' }),
        // The bundles ship source maps; without this flag Node ignores them in stack traces.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });

    if (tracing) {
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
      });
    }
  }

  /**
   * Reserves `executions` of the account's concurrency for this function: no other function can
   * take them, and this one never runs more (infra/reserved-concurrency.ts).
   */
  reserveConcurrency(executions: number): void {
    if (!Number.isInteger(executions) || executions < 1) {
      throw new Error(`reserved concurrency must be a positive integer, got ${executions}`);
    }
    (this.fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = executions;
  }
}
