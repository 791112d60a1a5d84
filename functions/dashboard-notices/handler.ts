import { accountStore, noticeLedger } from '../lib/aws/services.js';
import { NotYoursError } from '../lib/dashboard/dashboard-errors.js';
import { noticeViews } from '../lib/dashboard/notice-view.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { NOTIFY_PERCENTS } from '../lib/limits/thresholds.js';
import { monthKey } from '../lib/limits/windows.js';
import { routeByName } from '../routes.js';

// GET /v1/dashboard/notices: the 75/90/100% notices sent this month, with the figures each e-mail
// carried when it went out (not today's cap).
export const handler = defineHandler({
  route: routeByName('dashboard-notices'),
  input: () => undefined,
  run: async (_input, { session, now, services }) => {
    const account = await accountStore(services).getAccount(session.accountId);
    if (!account) throw new NotYoursError('the account is gone');
    const month = monthKey(now);
    const sent = await noticeLedger(services).sentIn(account.accountId, month, NOTIFY_PERCENTS);
    return { json: { notices: noticeViews(month, sent) } };
  },
});
