import type { EmailRulesPutBody } from '../../../functions/account-email-rules-put/contract.js';
import type { TravelPutBody } from '../../../functions/account-travel-put/contract.js';
import type { KeyCreateBody } from '../../../functions/dashboard-keys-create/contract.js';
import type { NoticesView } from '../../../functions/dashboard-notices/contract.js';
import type { OverviewView } from '../../../functions/dashboard-overview/contract.js';
import type { CurrentSession as CurrentSessionView } from '../../../functions/dashboard-session/contract.js';
import type { HostnameView, SessionView } from '../../../functions/dashboard-views.js';
import type { EmailBatchBody } from '../../../functions/email-batch/contract.js';
import type {
  EmailRulesViewSchema,
  GeofeedViewSchema,
  TravelSettingsViewSchema,
} from '../../../functions/lib/accounts/rules-schema.js';
import type { HostnameStatus } from '../../../functions/lib/custom-hostnames/hostname.js';
import type { DataReport, Dataset } from '../../../functions/lib/data-report.js';
import type { RelayAliasPolicy } from '../../../functions/lib/email/rules.js';
import type { EmailCheckResult } from '../../../functions/lib/email/schema.js';
import type { ErrorBody } from '../../../functions/lib/http/errors.js';
import type { Job } from '../../../functions/lib/jobs/job.js';
import type { DayUsage } from '../../../functions/lib/limits/usage-history.js';
import type { SubscribableEventType } from '../../../functions/lib/webhooks/events.js';
import type {
  AttemptSchema,
  DeliveriesPageSchema,
  EndpointCreateBody,
  EndpointListSchema,
  EndpointSchema,
  EndpointUpdateBody,
  EndpointWithSecretSchema,
  QueuedEventSchema,
  RotateBody,
} from '../../../functions/lib/webhooks/schema.js';
import type * as z from '../../../functions/lib/zod.js';
import type { Meter } from '../../../functions/routes.js';

// The API's answers as the app reads them: types only, inferred from the schemas of the dashboard
// routes' contracts (functions/dashboard-*/contract.ts, functions/dashboard-views.ts), of the
// account-rules and email-batch routes the Rules page calls with the session
// (functions/account-*/contract.ts, functions/lib/accounts/rules-schema.ts), of the webhook routes
// the Webhooks page calls with the session (functions/lib/webhooks/schema.ts) and the server's own
// vocabulary, so the client follows the contract and nothing of the server's code
// reaches the browser bundle.

/** DataReport: GET /v1/dashboard/data, the deployment's data in service (GET /v1/data's report). */
export type { DataReport, Dataset, EmailCheckResult, HostnameStatus, Job, Meter, RelayAliasPolicy };

export type Session = z.infer<typeof SessionView>;
/** GET /v1/dashboard/session: the session, or `{signedIn: false}` (a 200, not a 401). */
export type CurrentSession = z.infer<typeof CurrentSessionView>;
export type Overview = z.infer<typeof OverviewView>;
export type UsageDay = DayUsage;
export type Hostname = z.infer<typeof HostnameView>;
export type DnsRecord = Hostname['records'][number];
export type Notice = z.infer<typeof NoticesView>['notices'][number];
export type NewKey = z.input<typeof KeyCreateBody>;

/** GET and PUT /v1/account/travel: the impossible-travel settings in force and their last change. */
export type TravelSettings = z.infer<typeof TravelSettingsViewSchema>;
/** The body of PUT /v1/account/travel: a field left out takes its default. */
export type NewTravelSettings = z.input<typeof TravelPutBody>;
/** GET and PUT /v1/account/email-rules: the lists, the relay-alias policy and their last change. */
export type EmailRules = z.infer<typeof EmailRulesViewSchema>;
/** The body of PUT /v1/account/email-rules: the whole document (a list left out is empty). */
export type NewEmailRules = z.input<typeof EmailRulesPutBody>;
/** PUT /v1/account/geofeed: the private geofeed now in force. */
export type GeofeedSummary = z.infer<typeof GeofeedViewSchema>;
/** A row of a refused geofeed (400 invalid_geofeed): its line (0 for the feed as a whole) and why. */
export type GeofeedLine = NonNullable<ErrorBody['lines']>[number];
/** The body of POST /v1/email/batch. */
export type EmailBatch = z.input<typeof EmailBatchBody>;

/** The events a webhook endpoint may subscribe to (docs/webhooks.md). */
export type WebhookEventType = SubscribableEventType;
/** A webhook endpoint as GET /v1/webhooks lists it (never its secret). */
export type WebhookEndpoint = z.infer<typeof EndpointSchema>;
/** GET /v1/webhooks: the account's endpoints, oldest first. */
export type WebhookList = z.infer<typeof EndpointListSchema>;
/** POST /v1/webhooks and POST /v1/webhooks/{id}/rotate-secret: the endpoint and its secret, shown once. */
export type WebhookWithSecret = z.infer<typeof EndpointWithSecretSchema>;
/** The body of POST /v1/webhooks. */
export type NewWebhook = z.input<typeof EndpointCreateBody>;
/** The body of PUT /v1/webhooks/{id}: a field left out is unchanged. */
export type WebhookChange = z.input<typeof EndpointUpdateBody>;
/** The body of POST /v1/webhooks/{id}/rotate-secret. */
export type WebhookRotation = z.input<typeof RotateBody>;
/** One attempt of GET /v1/webhooks/{id}/deliveries. */
export type WebhookAttempt = z.infer<typeof AttemptSchema>;
/** GET /v1/webhooks/{id}/deliveries: the attempts, newest first, and the next page's cursor. */
export type WebhookDeliveries = z.infer<typeof DeliveriesPageSchema>;
/** POST /v1/webhooks/{id}/test and /redeliver: the event is queued for the endpoint (202). */
export type QueuedWebhookEvent = z.infer<typeof QueuedEventSchema>;

export type KeyType = 'publishable' | 'secret';

/** A key as GET /v1/dashboard/keys lists it (KeyView of functions/dashboard-views.ts). */
export interface ApiKey {
  keyId: string;
  type: KeyType;
  /** test: answers from fixed test data, never billed (docs/test-mode.md). */
  mode: 'live' | 'test';
  label: string | null;
  last4: string | null;
  origins: string[];
  createdAt: string;
  lastUsedDay: string | null;
  revoked: boolean;
}

export interface CreatedKey {
  /** The key itself: shown once, never again. */
  key: string;
  keyId: string;
  type: KeyType;
  mode: 'live' | 'test';
  label: string | null;
  last4: string | null;
  origins: string[];
  createdAt: string;
}

export interface Hostnames {
  eligible: boolean;
  hostnames: Hostname[];
}

export interface UploadTicket {
  uploadId: string;
  uploadUrl: string;
  method: 'POST';
  fields: Record<string, string>;
  maxBytes: number;
}

/** GET /v1/account/geofeed: the CSV as uploaded, and when (its Last-Modified), or null (404). */
export interface GeofeedFile {
  csv: string;
  /** ISO instant, to the second; null when the answer had no Last-Modified. */
  updatedAt: string | null;
}
