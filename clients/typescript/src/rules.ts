import { NetintelError } from './errors.js';
import type { CallOptions, Request, Transport } from './transport.js';
import type {
  EmailRules,
  EmailRulesUpdate,
  GeofeedSummary,
  TravelSettings,
  TravelSettingsUpdate,
} from './types.js';

/**
 * The answer's ETag: the state of the rules it shows (`"…"`, `"defaults"` while none are set). Pass it
 * back as `ifMatch` to change the rules only if nobody else has since.
 */
export interface Tagged {
  etag: string | null;
}

export interface RuleChangeOptions extends CallOptions {
  /**
   * The `etag` of the read or save this change is based on: the change is made only while the rules
   * still have it, else a NetintelError 412 `rules_changed` and nothing is applied (read them again and
   * apply the change to what is there now). Without it the last change wins.
   */
  ifMatch?: string | null;
}

/** The call options of a change, with its If-Match header. */
function changeRequest(
  { ifMatch, ...options }: RuleChangeOptions,
  headers: Record<string, string> = {},
): CallOptions & { headers: Record<string, string> } {
  return { ...options, headers: { ...headers, ...(ifMatch == null ? {} : { 'If-Match': ifMatch }) } };
}

/**
 * The account's own rules (secret key; never billed). A change is in force on every route within a
 * few seconds (the API's key cache); a list job keeps the email rules of its creation.
 */
export class Rules {
  constructor(private readonly transport: () => Transport) {}

  /** The answer's JSON with its ETag. */
  private async tagged<T>(request: Request): Promise<T & Tagged> {
    const transport = this.transport();
    const res = await transport.send(request);
    return { ...(await transport.jsonOf<T>(res)), etag: res.headers.get('etag') };
  }

  /** The impossible-travel settings in force (the defaults until set), with their `etag`. */
  async travel(options: CallOptions = {}): Promise<TravelSettings & Tagged> {
    return this.tagged({ ...options, method: 'GET', path: '/v1/account/travel' });
  }

  /** Replaces the impossible-travel settings; a field left out takes its default. */
  async setTravel(
    settings: TravelSettingsUpdate,
    options: RuleChangeOptions = {},
  ): Promise<TravelSettings & Tagged> {
    return this.tagged({
      ...changeRequest(options),
      method: 'PUT',
      path: '/v1/account/travel',
      json: settings,
    });
  }

  /** The email allow and block lists and the relay-alias policy in force, with their `etag`. */
  async emailRules(options: CallOptions = {}): Promise<EmailRules & Tagged> {
    return this.tagged({ ...options, method: 'GET', path: '/v1/account/email-rules' });
  }

  /** Replaces the email rules as a whole. */
  async setEmailRules(
    rules: EmailRulesUpdate,
    options: RuleChangeOptions = {},
  ): Promise<EmailRules & Tagged> {
    return this.tagged({
      ...changeRequest(options),
      method: 'PUT',
      path: '/v1/account/email-rules',
      json: rules,
    });
  }

  /** The private geofeed as uploaded (RFC 8805 CSV), or null when the account has none. */
  async geofeed(options: CallOptions = {}): Promise<string | null> {
    return (await this.geofeedWithTag(options)).csv;
  }

  /** The private geofeed (null when there is none) with its `etag` (`"defaults"` for none). */
  async geofeedWithTag(options: CallOptions = {}): Promise<{ csv: string | null } & Tagged> {
    try {
      const response = await this.transport().send({
        ...options,
        method: 'GET',
        path: '/v1/account/geofeed',
      });
      return { csv: await response.text(), etag: response.headers.get('etag') };
    } catch (error) {
      if (error instanceof NetintelError && error.status === 404) return { csv: null, etag: '"defaults"' };
      throw error;
    }
  }

  /**
   * Uploads the private geofeed (RFC 8805 CSV text, at most 10,000 prefixes and 1 MB), replacing any.
   * All or nothing: a bad row refuses it with a NetintelError whose `details.lines` names each row.
   */
  async setGeofeed(csv: string, options: RuleChangeOptions = {}): Promise<GeofeedSummary & Tagged> {
    return this.tagged({
      ...changeRequest(options, { 'Content-Type': 'text/csv' }),
      method: 'PUT',
      path: '/v1/account/geofeed',
      body: csv,
    });
  }

  /** Removes the private geofeed (idempotent without `ifMatch`). */
  async deleteGeofeed(options: RuleChangeOptions = {}): Promise<void> {
    await this.transport().send({ ...changeRequest(options), method: 'DELETE', path: '/v1/account/geofeed' });
  }
}
