import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { noticeText, type UsageNotice, type UsageNotifier } from '../limits/notifier.js';

/** Usage notices through SES v2 from NOTIFY_FROM (a verified identity of the deployment). */
export class SesNotifier implements UsageNotifier {
  private readonly client = new SESv2Client({});
  constructor(private readonly from: string) {}

  async send(notice: UsageNotice): Promise<void> {
    if (!notice.email) return;
    const { subject, body } = noticeText(notice);
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [notice.email] },
        Content: { Simple: { Subject: { Data: subject }, Body: { Text: { Data: body } } } },
      }),
    );
  }
}
