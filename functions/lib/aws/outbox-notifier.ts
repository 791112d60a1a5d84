import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  type Mail,
  type Mailer,
  noticeText,
  type UsageNotice,
  type UsageNotifier,
} from '../limits/notifier.js';
import { logger } from '../observability.js';

/** The outbox holds sign-in links that open a session: its owner's to read only. */
const OWNER_ONLY = { mode: 0o600 } as const;

/** Local stand-in for SES: one JSON line per notice or mail in an outbox file under DATA_DIR. */
export class OutboxNotifier implements UsageNotifier, Mailer {
  constructor(private readonly file: string) {}

  async send(notice: UsageNotice): Promise<void> {
    const { subject, body } = noticeText(notice);
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(
      this.file,
      `${JSON.stringify({ ...notice, subject, body, at: new Date().toISOString() })}\n`,
      OWNER_ONLY,
    );
    logger.info('usage notice written to outbox', { outbox: this.file, ...notice });
  }

  async sendMail(mail: Mail): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(this.file, `${JSON.stringify({ ...mail, at: new Date().toISOString() })}\n`, OWNER_ONLY);
    // Locally the outbox is the inbox: `npm start` shows the mail, sign-in link included.
    logger.info(`${mail.kind} for ${mail.to} written to outbox`, { outbox: this.file, body: mail.body });
  }
}
