import { HOSTNAME_STATUSES } from './lib/custom-hostnames/hostname.js';
import * as z from './lib/zod.js';

// The dashboard API's schemas that several of its routes share (docs/dashboard.md): the session,
// key and hostname as its answers show them, and the path parameters that name a key or a
// hostname. Each route's own schemas are in its folder's contract.ts.

export const SessionView = z.object({
  email: z.string(),
  accountId: z.string(),
  csrfToken: z
    .string()
    .check(z.describe('Send as X-CSRF-Token on every POST, PUT and DELETE of this session.')),
  expiresAt: z
    .string()
    .check(z.describe('When the session ends unless used again (12 h idle, 7 days at most).')),
});

export const KeyView = z.object({
  keyId: z.string(),
  type: z.enum(['publishable', 'secret']),
  mode: z
    .enum(['live', 'test'])
    .check(
      z.describe(
        'test: a test key, answering from fixed test data and never billed (the API guide: Test mode).',
      ),
    ),
  label: z.nullable(z.string()),
  last4: z.nullable(z.string()),
  origins: z.array(z.string()),
  createdAt: z.string(),
  lastUsedDay: z.nullable(z.string()),
  revoked: z.boolean(),
});

export const KeyParams = z.object({
  keyId: z.string().check(z.regex(/^key_[A-Za-z0-9_-]{1,40}$/, 'not a key id')),
});

const DnsRecord = z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), value: z.string() });
export const HostnameView = z.object({
  hostname: z.string(),
  status: z.enum(HOSTNAME_STATUSES),
  reason: z.nullable(z.string()),
  message: z.nullable(z.string()),
  records: z.array(DnsRecord),
  createdAt: z.string(),
  checkedAt: z.nullable(z.string()),
});

export const HostnameParams = z.object({ hostname: z.string().check(z.minLength(1), z.maxLength(253)) });
