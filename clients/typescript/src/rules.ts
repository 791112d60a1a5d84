import { NetintelError } from './errors.js';
import type { CallOptions, Transport } from './transport.js';
import type {
  EmailRules,
  EmailRulesUpdate,
  GeofeedSummary,
  TravelSettings,
  TravelSettingsUpdate,
} from './types.js';

/**
 * The account's own rules (secret key; never billed). A change is in force on every route within a
 * few seconds (the API's key cache); a list job keeps the email rules of its creation.
 */
export class Rules {
  constructor(private readonly transport: () => Transport) {}

  /** The impossible-travel settings in force (the defaults until set). */
  async travel(options: CallOptions = {}): Promise<TravelSettings> {
    return this.transport().json({ ...options, method: 'GET', path: '/v1/account/travel' });
  }

  /** Replaces the impossible-travel settings; a field left out takes its default. */
  async setTravel(settings: TravelSettingsUpdate, options: CallOptions = {}): Promise<TravelSettings> {
    return this.transport().json({ ...options, method: 'PUT', path: '/v1/account/travel', json: settings });
  }

  /** The email allow and block lists and the relay-alias policy in force. */
  async emailRules(options: CallOptions = {}): Promise<EmailRules> {
    return this.transport().json({ ...options, method: 'GET', path: '/v1/account/email-rules' });
  }

  /** Replaces the email rules as a whole. */
  async setEmailRules(rules: EmailRulesUpdate, options: CallOptions = {}): Promise<EmailRules> {
    return this.transport().json({ ...options, method: 'PUT', path: '/v1/account/email-rules', json: rules });
  }

  /** The private geofeed as uploaded (RFC 8805 CSV), or null when the account has none. */
  async geofeed(options: CallOptions = {}): Promise<string | null> {
    try {
      const response = await this.transport().send({
        ...options,
        method: 'GET',
        path: '/v1/account/geofeed',
      });
      return await response.text();
    } catch (error) {
      if (error instanceof NetintelError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * Uploads the private geofeed (RFC 8805 CSV text, at most 10,000 prefixes and 1 MB), replacing any.
   * All or nothing: a bad row refuses it with a NetintelError whose `details.lines` names each row.
   */
  async setGeofeed(csv: string, options: CallOptions = {}): Promise<GeofeedSummary> {
    return this.transport().json({
      ...options,
      method: 'PUT',
      path: '/v1/account/geofeed',
      headers: { 'Content-Type': 'text/csv' },
      body: csv,
    });
  }

  /** Removes the private geofeed (idempotent). */
  async deleteGeofeed(options: CallOptions = {}): Promise<void> {
    await this.transport().send({ ...options, method: 'DELETE', path: '/v1/account/geofeed' });
  }
}
