import type { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import type { NetintelFunction } from './netintel-function.js';

/**
 * Runs `fn` every `every` from an EventBridge rule. A failed run is tried again `retries` times by
 * EventBridge and never by Lambda, which would retry an asynchronous invocation twice more on its
 * own: the rule's count is the whole count. The sweeps and the verifier take 0 (the next run comes
 * soon), the data refresh 2.
 */
export function runOnSchedule(
  scope: Construct,
  id: string,
  fn: NetintelFunction,
  options: { description: string; every: Duration; retries: number },
): Rule {
  fn.fn.configureAsyncInvoke({ retryAttempts: 0 });
  return new Rule(scope, id, {
    description: options.description,
    schedule: Schedule.rate(options.every),
    targets: [new LambdaFunction(fn.fn, { retryAttempts: options.retries })],
  });
}
