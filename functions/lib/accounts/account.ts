import * as z from '../zod.js';

export const AccountSchema = z.object({
  accountId: z.string(),
  plan: z.string(),
  email: z.nullable(z.string()),
  createdAt: z.string(),
  perMinute: z.number().check(z.int(), z.positive()),
  monthlyCap: z.number().check(z.int(), z.positive()),
  includesSecurity: z.boolean(),
  customHostname: z.boolean(),
  /**
   * The account's own API Gateway API key (accounts/usage-plan-keys.ts): the authorizer names it as
   * usageIdentifierKey so the usage-plan throttle applies per account. Never given to the client;
   * with API keys taken from the authorizer, sending it grants nothing. Absent locally and on
   * accounts made before per-account keys (they share their plan's key until `account sync-keys`).
   */
  usagePlanKey: z.optional(z.object({ id: z.string(), value: z.string() })),
  /** Changes with every change of the account's own rules (accounts/account-rules.ts); absent without any. */
  rulesVersion: z.optional(z.string()),
});
export type Account = z.infer<typeof AccountSchema>;

export const KeyRecordSchema = z.object({
  keyId: z.string(),
  keyHash: z.string(),
  accountId: z.string(),
  type: z.enum(['publishable', 'secret']),
  origins: z.array(z.string()),
  revoked: z.boolean(),
  createdAt: z.string(),
  /** A name its owner gave it (dashboard). */
  label: z.optional(z.string()),
  /** The key's last 4 characters, to tell keys apart (keys made before the dashboard have none). */
  last4: z.optional(z.string()),
  /** The UTC day it was last used on, written at most once a day per container (authorizer). */
  lastUsedDay: z.optional(z.string()),
  /** `test`: a test key (docs/test-mode.md); absent on live keys. */
  mode: z.optional(z.literal('test')),
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

/** The port to where accounts and keys live (DynamoDB in AWS and locally). */
export interface AccountStore {
  getKeyByHash(keyHash: string): Promise<KeyRecord | undefined>;
  getAccount(accountId: string): Promise<Account | undefined>;
}
