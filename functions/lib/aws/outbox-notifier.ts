import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { noticeText, type UsageNotice, type UsageNotifier } from '../limits/notifier.js';
import { logger } from '../observability.js';

/** Local stand-in for SES: one JSON line per notice in an outbox file under DATA_DIR. */
export class OutboxNotifier implements UsageNotifier {
  constructor(private readonly file: string) {}

  async send(notice: UsageNotice): Promise<void> {
    const { subject, body } = noticeText(notice);
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(
      this.file,
      `${JSON.stringify({ ...notice, subject, body, at: new Date().toISOString() })}\n`,
    );
    logger.info('usage notice written to outbox', { outbox: this.file, ...notice });
  }
}
