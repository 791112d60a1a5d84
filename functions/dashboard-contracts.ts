import * as z from 'zod';
import { HOSTNAME_STATUSES } from './lib/custom-hostnames/hostname.js';
import { KeyLabelSchema } from './lib/dashboard/key-rules.js';
import { DataReportSchema } from './lib/data-report.js';
import type { ErrorCode } from './lib/http/errors.js';
import { UsageReportSchema } from './lib/limits/usage-report.js';
import type { DashboardRouteName } from './routes.js';

// The dashboard API's request and response schemas (docs/dashboard.md): its handlers validate with
// them and the OpenAPI document shows them under the Dashboard tag.

export interface DashboardContract {
  params?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
  responseStatus?: number;
  /** Codes besides session_required / csrf_token_invalid (session routes) and invalid_json. */
  errors?: readonly ErrorCode[];
}

const Email = z.string().max(320).describe('The member’s e-mail address.');

export const SignInBody = z.object({ email: Email }).strict();
export const SessionOpenBody = z
  .object({ token: z.string().max(100).describe('The token of the e-mailed link.') })
  .strict();

export const SessionView = z.object({
  email: z.string(),
  accountId: z.string(),
  csrfToken: z.string().describe('Send as X-CSRF-Token on every POST, PUT and DELETE of this session.'),
  expiresAt: z.string().describe('When the session ends unless used again (12 h idle, 7 days at most).'),
});

/** GET /v1/dashboard/session: the session, or that there is none (a 200 either way). */
export const CurrentSession = z.discriminatedUnion('signedIn', [
  SessionView.extend({ signedIn: z.literal(true) }),
  z.object({
    signedIn: z.literal(false).describe('No live session: no cookie, or its session ended.'),
  }),
]);

const KeyView = z.object({
  keyId: z.string(),
  type: z.enum(['publishable', 'secret']),
  label: z.string().nullable(),
  last4: z.string().nullable(),
  origins: z.array(z.string()),
  createdAt: z.string(),
  lastUsedDay: z.string().nullable(),
  revoked: z.boolean(),
});

export const KeyCreateBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('publishable'),
      origins: z.array(z.string().max(300)).max(100),
      label: KeyLabelSchema,
    })
    .strict(),
  z.object({ type: z.literal('secret'), label: KeyLabelSchema }).strict(),
]);
export const KeyOriginsBody = z.object({ origins: z.array(z.string().max(300)).max(100) }).strict();
export const KeyParams = z.object({ keyId: z.string().regex(/^key_[A-Za-z0-9_-]{1,40}$/, 'not a key id') });

const DnsRecord = z.object({ type: z.enum(['CNAME', 'TXT']), name: z.string(), value: z.string() });
export const HostnameView = z.object({
  hostname: z.string(),
  status: z.enum(HOSTNAME_STATUSES),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  records: z.array(DnsRecord),
  createdAt: z.string(),
  checkedAt: z.string().nullable(),
});
export const HostnameBody = z.object({ hostname: z.string().min(1).max(253) }).strict();
export const HostnameParams = z.object({ hostname: z.string().min(1).max(253) });

export const OverviewView = z.object({
  account: z.object({
    accountId: z.string(),
    plan: z.string(),
    perMinute: z.number().int(),
    monthlyCap: z.number().int(),
    includesSecurity: z.boolean(),
    customHostnames: z.boolean(),
  }),
  usage: UsageReportSchema,
  thresholds: z.array(z.number().int()),
  baseUrl: z.string().describe('The address to call: the active custom hostname when there is one.'),
});

export const NoticesView = z.object({
  notices: z.array(
    z.object({
      month: z.string(),
      percent: z.number().int(),
      used: z.number().int().nullable(),
      cap: z.number().int().nullable(),
      sentAt: z.string(),
    }),
  ),
});

export const DASHBOARD_CONTRACTS: Record<DashboardRouteName, DashboardContract> = {
  'dashboard-sign-in': {
    body: SignInBody,
    response: z.object({ message: z.string() }),
    responseStatus: 202,
    errors: ['invalid_body', 'missing_field', 'invalid_field', 'too_many_sign_in_requests'],
  },
  'dashboard-session-open': {
    body: SessionOpenBody,
    response: SessionView,
    responseStatus: 201,
    errors: ['missing_field', 'invalid_field', 'invalid_sign_in_link'],
  },
  'dashboard-session': { response: CurrentSession },
  'dashboard-sign-out': { responseStatus: 204 },
  'dashboard-overview': { response: OverviewView },
  'dashboard-keys-list': { response: z.object({ keys: z.array(KeyView) }) },
  'dashboard-keys-create': {
    body: KeyCreateBody,
    response: KeyView.extend({ key: z.string().describe('The key itself: shown this once, never stored.') }),
    responseStatus: 201,
    errors: ['invalid_body', 'missing_field', 'invalid_field'],
  },
  'dashboard-keys-update': {
    params: KeyParams,
    body: KeyOriginsBody,
    response: KeyView,
    errors: ['invalid_body', 'missing_field', 'invalid_field', 'not_found'],
  },
  'dashboard-keys-revoke': { params: KeyParams, responseStatus: 204, errors: ['invalid_field', 'not_found'] },
  'dashboard-hostnames-list': {
    response: z.object({ eligible: z.boolean(), hostnames: z.array(HostnameView) }),
  },
  'dashboard-hostnames-add': {
    body: HostnameBody,
    response: HostnameView,
    responseStatus: 201,
    errors: ['invalid_body', 'missing_field', 'invalid_field', 'not_in_plan'],
  },
  'dashboard-hostnames-check': { params: HostnameParams, response: HostnameView, errors: ['not_found'] },
  'dashboard-hostnames-remove': { params: HostnameParams, responseStatus: 204, errors: ['not_found'] },
  'dashboard-notices': { response: NoticesView },
  'dashboard-data': { response: DataReportSchema },
};
