import { createRequire } from 'node:module';
import type * as Ses from '@aws-sdk/client-sesv2';
import {
  type Mail,
  type Mailer,
  noticeText,
  type UsageNotice,
  type UsageNotifier,
} from '../limits/notifier.js';
import { CALL_BOUNDS, type CallBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

// SES is used for a few notices a month per account: the client comes from the Lambda runtime's
// SDK, required on the first notice. (A static or dynamic `import` of an external module would be
// hoisted into the bundle's top-level imports and loaded at every cold start.)
const load = createRequire(import.meta.url);

/** Usage notices and sign-in links through SES v2 from NOTIFY_FROM (a verified identity of the deployment). */
export class SesNotifier implements UsageNotifier, Mailer {
  private client: Ses.SESv2Client | undefined;
  private sdk: typeof Ses | undefined;
  /**
   * `bound`: its calls' (call-bounds.ts ses). A send that timed out is retried as the SDK does: SES
   * may have queued the first, so a notice or link can arrive twice, which beats one never sent
   * (the ledger marks a notice sent once; a sign-in link is asked for again).
   */
  constructor(
    private readonly from: string,
    private readonly bound: CallBound = CALL_BOUNDS.ses,
  ) {}

  async send(notice: UsageNotice): Promise<void> {
    if (!notice.email) return;
    await this.deliver(notice.email, noticeText(notice));
  }

  sendMail(mail: Mail): Promise<void> {
    return this.deliver(mail.to, mail);
  }

  private async deliver(to: string, { subject, body }: { subject: string; body: string }): Promise<void> {
    this.sdk ??= load('@aws-sdk/client-sesv2') as typeof Ses;
    this.client ??= traceClient(new this.sdk.SESv2Client(clientBounds(this.bound)));
    await this.client.send(
      new this.sdk.SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: body } } } },
      }),
    );
  }
}
