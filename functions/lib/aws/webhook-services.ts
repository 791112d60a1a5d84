import { toJob } from '../jobs/job.js';
import type { JobEndListener } from '../jobs/job-end.js';
import type { Mailer, UsageNotice } from '../limits/notifier.js';
import { part, type Services } from '../runtime/services.js';
import { liveAccountOf } from '../test-mode/mode.js';
import { type AnnounceDeps, announce } from '../webhooks/announce.js';
import type { DeliveryDeps } from '../webhooks/delivery.js';
import { jobEvent, usageThresholdEvent } from '../webhooks/events.js';
import { disabledMail } from '../webhooks/notices.js';
import { httpPost } from '../webhooks/post.js';
import { webhookResolver } from '../webhooks/resolve.js';
import { WEBHOOK_QUEUE } from './resources.js';
import { accountStore } from './services.js';
import { sqsClient } from './sqs-client.js';
import { WebhookQueue } from './webhook-queue.js';
import { destinationPolicy, webhookStore } from './webhook-store-services.js';

// The parts of a service instance that deliver webhooks (the deliveries queue, the delivery agent,
// over the Webhooks table of webhook-store-services.ts). Apart from services.ts: only the functions
// that announce or deliver events (list jobs, usage notices, test and redelivered events) reach them.

export const webhookQueue = /* @__PURE__ */ part(
  (s) => new WebhookQueue(sqsClient(s), s.config[WEBHOOK_QUEUE.envVar] ?? ''),
);

export function announceDeps(s: Services): AnnounceDeps {
  return { store: webhookStore(s), queue: webhookQueue(s), now: s.now };
}

export function deliveryDeps(s: Services, mailer: () => Promise<Mailer>): DeliveryDeps {
  return {
    store: webhookStore(s),
    post: webhookPost(s),
    policy: destinationPolicy(s),
    queue: webhookQueue(s),
    now: s.now,
    disabled: async (accountId, endpoint, reason) => {
      // A test partition's endpoints (docs/test-mode.md) are its live account's to hear about.
      const account = await accountStore(s).getAccount(liveAccountOf(accountId));
      if (!account?.email) return;
      await (await mailer()).sendMail(disabledMail(account.email, accountId, endpoint, reason));
    },
  };
}

/** Announces a list job's end (job.completed or job.failed) with the job as GET answers it. */
export function jobEndListener(s: Services): JobEndListener {
  return async (job) => {
    const now = s.now();
    const type = job.status === 'completed' ? 'job.completed' : 'job.failed';
    const event = jobEvent(job.accountId, type, toJob(job, now), now);
    await announce(announceDeps(s), event, job.webhook ? { job: job.webhook } : {});
  };
}

/** Announces a usage notice's threshold (usage.threshold) to the account's endpoints. */
export async function announceUsageThreshold(s: Services, notice: UsageNotice): Promise<void> {
  const { accountId, month, percent, used, cap } = notice;
  await announce(announceDeps(s), usageThresholdEvent(accountId, { month, percent, used, cap }, s.now()));
}

const webhookPost = /* @__PURE__ */ part((s) =>
  httpPost({
    policy: destinationPolicy(s),
    resolve: webhookResolver(s.config.DNS_SERVERS),
    ...(s.connectGuard ? { connectGuard: s.connectGuard } : {}),
  }),
);
