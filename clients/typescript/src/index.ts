export { BATCH_SIZE } from './batches.js';
export {
  type Fields,
  Netintel,
  type NetintelOptions,
  type PublishableKeyOptions,
  type SecretKeyOptions,
  type Selected,
} from './client.js';
export { CsvRecords } from './csv-rows.js';
export { NetintelError } from './errors.js';
export {
  type CreateOptions,
  type CreateProgress,
  DIRECT_LIMIT_BYTES,
  type JobInput,
  Jobs,
  type WaitOptions,
} from './jobs.js';
export { type RuleChangeOptions, Rules, type Tagged } from './rules.js';
export type { CallOptions } from './transport.js';
export type {
  BatchLookupResult,
  CreatedJob,
  DataReport,
  Dataset,
  EmailCheckResult,
  EmailRules,
  EmailRulesUpdate,
  GeofeedSummary,
  GeoResult,
  Job,
  JobPage,
  LookupResult,
  paths,
  QueuedWebhookEvent,
  RiskCheckRequest,
  RiskCheckResult,
  SignupCheckRequest,
  SignupCheckResult,
  TravelSettings,
  TravelSettingsUpdate,
  UploadTicket,
  Usage,
  WebhookAttempt,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointInput,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookEventType,
} from './types.js';
export { Webhooks } from './webhook-endpoints.js';
export { type VerifyOptions, verifyWebhook, type WebhookVerification } from './webhooks.js';
