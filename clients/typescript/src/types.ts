import type { paths } from './openapi.js';

// The client's types, read off the API's OpenAPI document (openapi.ts is generated from it by
// `npm run clients:types` and checked against GET /v1/openapi.json by the tests): a field renamed
// in the API fails the client's type check instead of drifting.

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Operation<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];
/** The JSON of an operation's success answer (200, 201 or 202). */
type Answer<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;
/** The JSON body an operation takes. */
type BodyOf<P extends keyof paths, M extends keyof paths[P]> =
  Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/**
 * The whole answer of a route whose answers `fields` may cut: its schema is the whole answer or a
 * cut one (anyOf), and the cut one leaves `country` optional. Cut answers are typed by the methods
 * that ask for them (client.ts `Selected`).
 */
type Whole<T> = Extract<T, { country: unknown }>;

export type GeoResult = Whole<Answer<'/v1/geo', 'get'>>;
export type LookupResult = Whole<Answer<'/v1/lookup/{ip}', 'get'>>;
export type BatchLookupResult = Whole<Answer<'/v1/lookup', 'post'>['results'][number]>;
export type EmailCheckResult = Answer<'/v1/email/validate', 'post'>;
export type SignupCheckRequest = BodyOf<'/v1/signup/check', 'post'>;
export type SignupCheckResult = Answer<'/v1/signup/check', 'post'>;
export type RiskCheckRequest = BodyOf<'/v1/risk/check', 'post'>;
export type RiskCheckResult = Answer<'/v1/risk/check', 'post'>;
export type Usage = Answer<'/v1/usage', 'get'>;
export type DataReport = Answer<'/v1/data', 'get'>;
export type Dataset = DataReport['datasets'][number];
export type Job = Answer<'/v1/email/jobs/{id}', 'get'>;
/** The answer of a job's creation: the job, and the `webhookSecret` of its own `webhookUrl` when it named one. */
export type CreatedJob = Answer<'/v1/email/jobs', 'post'>;
export type JobPage = Answer<'/v1/email/jobs', 'get'>;
export type UploadTicket = Answer<'/v1/email/jobs/uploads', 'post'>;
export type TravelSettings = Answer<'/v1/account/travel', 'get'>;
export type TravelSettingsUpdate = BodyOf<'/v1/account/travel', 'put'>;
export type EmailRules = Answer<'/v1/account/email-rules', 'get'>;
export type EmailRulesUpdate = BodyOf<'/v1/account/email-rules', 'put'>;
export type GeofeedSummary = Answer<'/v1/account/geofeed', 'put'>;
/** A webhook endpoint as the API shows it (never its secret). */
export type WebhookEndpoint = Answer<'/v1/webhooks/{id}', 'get'>;
/** An endpoint with its signing secret (`whsec_…`): the answer of a creation or a rotation, shown that once. */
export type WebhookEndpointWithSecret = Answer<'/v1/webhooks', 'post'>;
export type WebhookEndpointList = Answer<'/v1/webhooks', 'get'>;
export type WebhookEndpointInput = BodyOf<'/v1/webhooks', 'post'>;
export type WebhookEndpointChange = BodyOf<'/v1/webhooks/{id}', 'put'>;
export type WebhookEventType = WebhookEndpoint['events'][number];
export type WebhookDeliveryPage = Answer<'/v1/webhooks/{id}/deliveries', 'get'>;
/** One delivery attempt of the log. */
export type WebhookAttempt = WebhookDeliveryPage['deliveries'][number];
/** An event queued for one endpoint (a test or a redelivery). */
export type QueuedWebhookEvent = Answer<'/v1/webhooks/{id}/test', 'post'>;
export type { paths };
