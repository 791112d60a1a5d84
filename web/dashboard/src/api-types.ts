import type * as z from 'zod';
import type { KeyCreateBody } from '../../../functions/dashboard-keys-create/contract.js';
import type { NoticesView } from '../../../functions/dashboard-notices/contract.js';
import type { OverviewView } from '../../../functions/dashboard-overview/contract.js';
import type { CurrentSession as CurrentSessionView } from '../../../functions/dashboard-session/contract.js';
import type { HostnameView, SessionView } from '../../../functions/dashboard-views.js';
import type { HostnameStatus } from '../../../functions/lib/custom-hostnames/hostname.js';
import type { DataReport, Dataset } from '../../../functions/lib/data-report.js';
import type { Job } from '../../../functions/lib/jobs/job.js';
import type { DayUsage } from '../../../functions/lib/limits/usage-history.js';
import type { Meter } from '../../../functions/routes.js';

// The API's answers as the app reads them: types only, inferred from the schemas of the dashboard
// routes' contracts (functions/dashboard-*/contract.ts, functions/dashboard-views.ts) and the
// server's own vocabulary, so the client follows the contract and nothing of the server's code
// reaches the browser bundle.

/** DataReport: GET /v1/dashboard/data, the deployment's data in service (GET /v1/data's report). */
export type { DataReport, Dataset, HostnameStatus, Job, Meter };

export type Session = z.infer<typeof SessionView>;
/** GET /v1/dashboard/session: the session, or `{signedIn: false}` (a 200, not a 401). */
export type CurrentSession = z.infer<typeof CurrentSessionView>;
export type Overview = z.infer<typeof OverviewView>;
export type UsageDay = DayUsage;
export type Hostname = z.infer<typeof HostnameView>;
export type DnsRecord = Hostname['records'][number];
export type Notice = z.infer<typeof NoticesView>['notices'][number];
export type NewKey = z.input<typeof KeyCreateBody>;

export type KeyType = 'publishable' | 'secret';

/** A key as GET /v1/dashboard/keys lists it (KeyView of functions/dashboard-views.ts). */
export interface ApiKey {
  keyId: string;
  type: KeyType;
  label: string | null;
  last4: string | null;
  origins: string[];
  createdAt: string;
  lastUsedDay: string | null;
  revoked: boolean;
}

export interface CreatedKey {
  /** The key itself: shown once, never again. */
  key: string;
  keyId: string;
  type: KeyType;
  label: string | null;
  last4: string | null;
  origins: string[];
  createdAt: string;
}

export interface Hostnames {
  eligible: boolean;
  hostnames: Hostname[];
}

export interface UploadTicket {
  uploadId: string;
  uploadUrl: string;
  method: 'POST';
  fields: Record<string, string>;
  maxBytes: number;
}
