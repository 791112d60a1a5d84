import { createRequire } from 'node:module';
import type * as Ses from '@aws-sdk/client-sesv2';
import {
  type Mail,
  type Mailer,
  noticeText,
  type UsageNotice,
  type UsageNotifier,
} from '../limits/notifier.js';
import { traceClient } from './tracing.js';

// SES is used for a few notices a month per account: the client comes from the Lambda runtime's
// SDK, required on the first notice. (A static or dynamic `import` of an external module would be
// hoisted into the bundle's top-level imports and loaded at every cold start.)
const load = createRequire(import.meta.url);

/** Usage notices and sign-in links through SES v2 from NOTIFY_FROM (a verified identity of the deployment). */
export class SesNotifier implements UsageNotifier, Mailer {
  private client: Ses.SESv2Client | undefined;
  private sdk: typeof Ses | undefined;
  constructor(private readonly from: string) {}

  async send(notice: UsageNotice): Promise<void> {
    if (!notice.email) return;
    await this.deliver(notice.email, noticeText(notice));
  }

  sendMail(mail: Mail): Promise<void> {
    return this.deliver(mail.to, mail);
  }

  private async deliver(to: string, { subject, body }: { subject: string; body: string }): Promise<void> {
    this.sdk ??= load('@aws-sdk/client-sesv2') as typeof Ses;
    this.client ??= traceClient(new this.sdk.SESv2Client({}));
    await this.client.send(
      new this.sdk.SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: body } } } },
      }),
    );
  }
}
