import { accountStore, dashboardUrl, hostnameStore, usageCounter } from '../lib/aws/services.js';
import { NotYoursError } from '../lib/dashboard/dashboard-errors.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { NOTIFY_PERCENTS } from '../lib/limits/thresholds.js';
import { usageReport } from '../lib/limits/usage-report.js';
import { routeByName } from '../routes.js';

// GET /v1/dashboard/overview: what the Overview page shows, usage as GET /v1/usage?days=90 has it.
export const handler = defineHandler({
  route: routeByName('dashboard-overview'),
  input: () => undefined,
  run: async (_input, { session, now, req, services }) => {
    const account = await accountStore(services).getAccount(session.accountId);
    if (!account) throw new NotYoursError('the account is gone');
    const hostnames = account.customHostname
      ? await hostnameStore(services).listByAccount(account.accountId)
      : [];
    const active = hostnames.find((h) => h.status === 'active');
    return {
      json: {
        account: {
          accountId: account.accountId,
          plan: account.plan,
          perMinute: account.perMinute,
          monthlyCap: account.monthlyCap,
          includesSecurity: account.includesSecurity,
          customHostnames: account.customHostname,
        },
        usage: await usageReport(usageCounter(services), account, now, { days: 90 }),
        thresholds: [...NOTIFY_PERCENTS],
        baseUrl: active
          ? `https://${active.hostname}`
          : new URL(dashboardUrl(services, req.headers) ?? `https://${req.headers.host}/`).origin,
      },
    };
  },
});
