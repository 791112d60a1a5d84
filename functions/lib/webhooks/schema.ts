import { apiCode } from '../http/validate.js';
import * as z from '../zod.js';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from './endpoints.js';
import { WEBHOOK_EVENT_TYPES } from './events.js';

// The requests and answers of /v1/webhooks (docs/webhooks.md).

const URL_MAX = 2048;
const DESCRIPTION_MAX = 200;

const EVENTS_ERROR = `events: one or more of ${WEBHOOK_EVENT_TYPES.join(', ')}.`;

const eventTypes = z.array(z.enum(WEBHOOK_EVENT_TYPES)).check(
  // invalid_field, not the batch routes' empty_batch/batch_too_large (a length check's codes): this is no batch.
  z.refine((events) => events.length >= 1 && events.length <= WEBHOOK_EVENT_TYPES.length * 2, {
    ...apiCode('invalid_field'),
    error: EVENTS_ERROR,
  }),
  z.meta({ minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length * 2 }),
  z.describe(`The events the endpoint receives: ${WEBHOOK_EVENT_TYPES.join(', ')}.`),
);

const url = z.string().check(
  z.minLength(1),
  // invalid_webhook_url, as every other refusal of the URL and a job's too long webhookUrl (docs/errors.md).
  z.refine((value) => value.length <= URL_MAX, {
    ...apiCode('invalid_webhook_url'),
    error: `The URL is longer than ${URL_MAX.toLocaleString('en-US')} characters.`,
  }),
  z.meta({ maxLength: URL_MAX }),
  z.describe(
    'Where events are POSTed: an absolute https URL on a public host (never a private, loopback, link-local or metadata address; a name is checked again at every delivery).',
  ),
);

const description = z
  .nullable(z.string().check(z.maxLength(DESCRIPTION_MAX)))
  .check(z.describe('Your note.'));

export const EndpointCreateBody = z.strictObject({
  url,
  events: eventTypes,
  description: z.optional(description),
});

export const EndpointUpdateBody = z.strictObject({
  url: z.optional(url),
  events: z.optional(eventTypes),
  description: z.optional(description),
  enabled: z
    .optional(z.boolean())
    .check(
      z.describe(
        'true starts deliveries again (an endpoint disabled after failures included); false stops them.',
      ),
    ),
});

export const RotateBody = z.strictObject({
  overlapSeconds: z
    .optional(z.number().check(z.int(), z.minimum(0), z.maximum(MAX_ROTATION_OVERLAP_SECONDS)))
    .check(
      z.describe(
        `Seconds the current secret keeps signing beside the new one (default ${DEFAULT_ROTATION_OVERLAP_SECONDS}, at most ${MAX_ROTATION_OVERLAP_SECONDS}; 0 stops it now).`,
      ),
    ),
});

export const RedeliverBody = z.strictObject({
  eventId: z
    .string()
    .check(
      z.regex(/^evt_[A-Za-z0-9_-]{1,64}$/),
      z.describe('The event to send again (from the delivery log or a delivery).'),
    ),
});

/** Any string: an id that names none of the caller's endpoints, well-formed or not, is 404 webhook_not_found. */
export const WebhookPath = z.object({ id: z.string().check(z.describe('Endpoint id (we_…)')) });

const LIMIT_ERROR = { error: 'limit: an integer from 1 to 100.' };
export const DeliveriesQuery = z.object({
  limit: z
    .optional(
      z.pipe(
        z.string().check(z.regex(/^\d{1,3}$/, LIMIT_ERROR)),
        z.coerce.number<string>().check(z.int(), z.minimum(1, LIMIT_ERROR), z.maximum(100, LIMIT_ERROR)),
      ),
    )
    .check(z.describe('Attempts per page, 1 to 100 (default 20).')),
  cursor: z
    .optional(
      z.string().check(
        z.regex(/^[0-9TZ:.-]{20,30}#evt_[A-Za-z0-9_-]{1,64}#\d{3}$/, {
          ...apiCode('invalid_query'),
          error: 'cursor: use the nextCursor of the previous page.',
        }),
      ),
    )
    .check(z.describe('The nextCursor of the previous page; absent for the first page.')),
});

export const EndpointSchema = z
  .object({
    id: z.string().check(z.describe('Endpoint id (we_…).')),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.nullable(z.string()),
    status: z
      .enum(['enabled', 'disabled'])
      .check(z.describe('disabled: no deliveries (by you, or after an event failed for 24 hours).')),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    previousSecretExpiresAt: z
      .nullable(z.iso.datetime())
      .check(z.describe('During a rotation: until when the previous secret still signs deliveries.')),
    disabledAt: z.nullable(z.iso.datetime()),
    disabledReason: z.nullable(z.string()),
  })
  .check(z.describe('A webhook endpoint (its secret is shown only when created or rotated).'));

export const EndpointWithSecretSchema = z
  .extend(EndpointSchema, {
    secret: z
      .string()
      .check(
        z.describe(
          'The signing secret (whsec_…), shown this once: keep it to verify the Netintel-Signature header.',
        ),
      ),
  })
  .check(z.describe('The endpoint and its new signing secret, shown this once.'));

export const EndpointListSchema = z
  .object({ endpoints: z.array(EndpointSchema) })
  .check(z.describe("The account's webhook endpoints, oldest first."));

export const AttemptSchema = z.object({
  eventId: z.string(),
  eventType: z.string(),
  attempt: z
    .number()
    .check(z.int(), z.positive(), z.describe('1 for the first attempt of the event, and so on.')),
  at: z.iso.datetime(),
  outcome: z.enum(['succeeded', 'failed']),
  status: z
    .nullable(z.number().check(z.int()))
    .check(z.describe("The receiver's HTTP status; null when none came.")),
  latencyMs: z.number().check(z.int(), z.nonnegative()),
  response: z
    .string()
    .check(z.describe("The start of the receiver's answer (1 KB at most), or why no answer came.")),
});

export const DeliveriesPageSchema = z
  .object({
    deliveries: z.array(AttemptSchema),
    nextCursor: z.nullable(z.string()),
  })
  .check(z.describe("The endpoint's delivery attempts, newest first (kept 30 days)."));

export const QueuedEventSchema = z
  .object({
    eventId: z.string(),
    endpointId: z.string(),
    queued: z.literal(true),
  })
  .check(z.describe('The event is queued for the endpoint; its attempts appear in the delivery log.'));
