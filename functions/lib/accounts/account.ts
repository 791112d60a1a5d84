import * as z from 'zod';

export const AccountSchema = z.object({
  accountId: z.string(),
  plan: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  perMinute: z.number().int().positive(),
  monthlyCap: z.number().int().positive(),
  includesSecurity: z.boolean(),
  customHostname: z.boolean(),
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
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

/** The port to where accounts and keys live (DynamoDB in AWS and locally). */
export interface AccountStore {
  getKeyByHash(keyHash: string): Promise<KeyRecord | undefined>;
  getAccount(accountId: string): Promise<Account | undefined>;
}
