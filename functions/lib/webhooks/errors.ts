// The refusals of webhook requests, in a module of their own: the one error registry
// (http/middleware/domain-errors.ts) loads them in every function, the webhook code only in some.
import { EVENT_RETENTION_DAYS } from './events.js';

export class TooManyEndpointsError extends Error {
  constructor(readonly max: number) {
    super(`An account has at most ${max} webhook endpoints; delete one first.`);
    this.name = 'TooManyEndpointsError';
  }
}

export class EndpointNotFoundError extends Error {
  constructor(readonly endpointId: string) {
    // Quoted back only when it has the form of an id: never a 3,000-character or control-laden path.
    super(
      /^we_[A-Za-z0-9_-]{1,64}$/.test(endpointId)
        ? `No webhook endpoint ${endpointId} on this account.`
        : 'No webhook endpoint with that id on this account.',
    );
    this.name = 'EndpointNotFoundError';
  }
}

/** A test event or a redelivery to an endpoint that is disabled: nothing would be delivered. */
export class EndpointDisabledError extends Error {
  constructor(readonly endpointId: string) {
    super(
      `The webhook endpoint ${endpointId} is disabled: enable it (PUT /v1/webhooks/{id} with {"enabled": true}) before sending it events.`,
    );
    this.name = 'EndpointDisabledError';
  }
}

export class EventNotFoundError extends Error {
  constructor(readonly eventId: string) {
    super(`No event ${eventId} on this account (events are kept ${EVENT_RETENTION_DAYS} days).`);
    this.name = 'EventNotFoundError';
  }
}

export class WebhookUrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookUrlRefusedError';
  }
}

/** Another change kept winning the race for the set (an account hammering its own endpoints). */
export class EndpointSetBusyError extends Error {
  constructor() {
    super('The webhook endpoints were changed by other requests meanwhile; try again.');
    this.name = 'EndpointSetBusyError';
  }
}
