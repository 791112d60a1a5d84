import { Fn, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';

/**
 * SES v2 SendEmail from NOTIFY_FROM only: its address identity and its domain identity (usage
 * notices, sign-in links, the e-mail about a disabled webhook endpoint).
 */
export function grantSendUsageNotices(fn: LambdaFunction, notifyFrom: string): void {
  const stack = Stack.of(fn);
  // The NotifyFrom parameter is a token until deploy: CloudFormation splits it there.
  const domain = Token.isUnresolved(notifyFrom)
    ? Fn.select(1, Fn.split('@', notifyFrom))
    : (notifyFrom.split('@')[1] ?? notifyFrom);
  const identities = [notifyFrom, domain];
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['ses:SendEmail'],
      resources: [...new Set(identities)].map((identity) =>
        stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity }),
      ),
    }),
  );
}
