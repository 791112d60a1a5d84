import type { KeyRecord } from '../accounts/account.js';
import { normaliseAllowedOrigin } from '../accounts/origins.js';
import * as z from '../zod.js';
import { DashboardInputError } from './dashboard-errors.js';

// The rules for keys made or changed in the dashboard: the admin CLI's (origins normalised, at
// least one for a publishable key, none for a secret one), with bounds a web form needs.

export const MAX_ORIGINS = 20;
const LABEL_MAX = 60;

export const KeyLabelSchema = z.optional(
  z.string().check(z.trim(), z.maxLength(LABEL_MAX), z.regex(/^[^\p{C}]*$/u, 'no control characters')),
);

/** Allowed origins as stored: normalised, distinct, 1 to MAX_ORIGINS. */
export function allowedOrigins(raw: readonly string[]): string[] {
  if (raw.length === 0) throw new DashboardInputError('a publishable key needs at least one allowed origin');
  if (raw.length > MAX_ORIGINS) throw new DashboardInputError(`a key takes at most ${MAX_ORIGINS} origins`);
  const out = raw.map((entry) => {
    const origin = normaliseAllowedOrigin(entry);
    if (!origin)
      throw new DashboardInputError(
        `"${entry.slice(0, 100)}" is not an origin (scheme://host[:port], or http://localhost:*)`,
      );
    return origin;
  });
  return [...new Set(out)];
}

/** A key as the dashboard lists it: never its hash. */
export function keyView(record: Omit<KeyRecord, 'keyHash'>) {
  return {
    keyId: record.keyId,
    type: record.type,
    mode: record.mode ?? 'live',
    label: record.label ?? null,
    last4: record.last4 ?? null,
    origins: record.origins,
    createdAt: record.createdAt,
    lastUsedDay: record.lastUsedDay ?? null,
    revoked: record.revoked,
  };
}
export type KeyView = ReturnType<typeof keyView>;
