import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  type AddToPrincipalPolicyResult,
  PolicyDocument,
  type PolicyStatement,
  Role,
  type RoleProps,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import {
  type CfnFunction,
  Function as LambdaFunction,
  LoggingFormat,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type ILogGroup, LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerEntry } from '../../functions/routes.js';
import { LAMBDA_ARCHITECTURE, LAMBDA_RUNTIME, lambdaCode } from '../bundling.js';
import { parseFlag } from '../context.js';
import { PROJECT_ROOT } from '../project-root.js';
import { FUNCTION_LOG_RETENTION } from './observability.js';

/**
 * Whether the stack traces with X-Ray: on unless the deployer turns it off (`-c tracing=false`).
 * Off, no function loads the X-Ray SDK at its cold start (functions/lib/aws/tracing.ts), the API
 * stage records no traces, and nothing is spent on X-Ray. Anything but true or false is refused
 * (infra/context.ts parseFlag): `-c tracing=off` used to leave tracing on.
 */
export function tracingOn(scope: Construct): boolean {
  return parseFlag('tracing', scope.node.tryGetContext('tracing')) ?? true;
}

export interface NetintelFunctionProps {
  /** Folder under functions/ holding handler.ts. */
  handler: string;
  /** Stable marker the infra tests find functions by: `route:<name>`, `authorizer`, `queue:<name>`. */
  description: string;
  memoryMb: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
  /**
   * The log group of the function's area, shared with the other functions of that area
   * (functionLogGroup): the API's routes and authorizers, the list-job pipeline, the webhook
   * pipeline. Lambda names each stream `YYYY/MM/DD/<function-name>[$LATEST]<id>`, so one function's
   * lines are still its streams. Default: a group of its own (a function alone in its area).
   */
  logGroup?: ILogGroup;
}

/**
 * A log group for the functions of one area, kept as long as every function log
 * (FUNCTION_LOG_RETENTION) and deleted with the stack. One group per area rather than per
 * function: a stack has at most 500 resources.
 */
export function functionLogGroup(scope: Construct, id: string): LogGroup {
  return new LogGroup(scope, id, { retention: FUNCTION_LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
}

/**
 * Characters of a role's policy document (as synthesized, references unresolved) above which the
 * synth fails: IAM allows 10,240 characters of inline policy per role once ARNs are resolved, and a
 * resolved ARN is longer than the reference it replaces. The largest role of the stack has about 3,600.
 */
export const INLINE_POLICY_BUDGET = 8000;

/**
 * A function's role with its permissions in the role itself (the `Policies` of AWS::IAM::Role)
 * instead of a separate AWS::IAM::Policy, CDK's default: the same inline policy, one CloudFormation
 * resource where CDK makes two (a stack has at most 500). Every grant lands in that one document.
 * CDK splits an oversized DefaultPolicy into managed policies; this one is checked against
 * INLINE_POLICY_BUDGET instead, and the synth fails when it would not fit.
 */
export class InlinePolicyRole extends Role {
  private readonly permissions: PolicyDocument;

  constructor(scope: Construct, id: string, props: Omit<RoleProps, 'inlinePolicies'>) {
    const permissions = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { permissions } });
    this.permissions = permissions;
    this.node.addValidation({
      validate: () => {
        const size = JSON.stringify(Stack.of(this).resolve(this.permissions)).length;
        return size <= INLINE_POLICY_BUDGET
          ? []
          : [
              `its policy is ${size} characters, over ${INLINE_POLICY_BUDGET} (IAM allows 10,240 of inline policy per role)`,
            ];
      },
    });
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.permissions.addStatements(statement);
    // Whatever needs the permission waits for the role, which now holds it.
    return { statementAdded: true, policyDependable: this };
  }
}

/**
 * Every Lambda of the stack, built one way: ESM bundle split at its dynamic imports (infra/bundling.ts), newest Node runtime on
 * arm64, active tracing unless turned off (Powertools Tracer, functions/lib/aws/tracing.ts), JSON logs into its
 * area's log group (or one of its own) with the retention Observability sets, and a role that may write to
 * that log group only (no AWSLambdaBasicExecutionRole, whose `logs:*` on `*` cdk-nag IAM4 rightly flags),
 * every permission of the role in the role itself (InlinePolicyRole).
 */
export class NetintelFunction extends Construct {
  readonly fn: LambdaFunction;
  /** Where the function logs: its area's shared group, or its own. */
  readonly logGroup: ILogGroup;

  constructor(scope: Construct, id: string, props: NetintelFunctionProps) {
    super(scope, id);
    const tracing = tracingOn(this);

    this.logGroup = props.logGroup ?? functionLogGroup(this, 'Logs');
    const role = new InlinePolicyRole(this, 'Role', {
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
