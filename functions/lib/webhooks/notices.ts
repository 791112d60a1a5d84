import type { Mail } from '../limits/notifier.js';
import type { WebhookEndpoint } from './endpoints.js';

/** The e-mail telling an account that one of its endpoints stopped receiving events. */
export function disabledMail(to: string, accountId: string, endpoint: WebhookEndpoint, reason: string): Mail {
  return {
    to,
    kind: 'webhook-disabled',
    subject: `netintel: webhook endpoint ${endpoint.id} disabled`,
    body:
      `Account ${accountId}: the webhook endpoint ${endpoint.id} (${endpoint.url}) no longer receives events:\n` +
      `${reason}.\n\n` +
      'Its delivery log (GET /v1/webhooks/{id}/deliveries, or the dashboard) shows each attempt. Once the\n' +
      'receiver answers again, enable the endpoint (PUT /v1/webhooks/{id} with {"enabled": true}) and\n' +
      'redeliver the events it missed (POST /v1/webhooks/{id}/redeliver).\n',
  };
}
