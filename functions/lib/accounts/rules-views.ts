import type { EmailRules } from '../email/rules.js';
import { DEFAULT_EMAIL_RULES } from '../email/rules.js';
import { DEFAULT_TRAVEL_SETTINGS } from '../risk/travel-settings.js';
import type { DocumentMeta, RulesMeta } from './account-rules.js';
import type { TravelSettingsView } from './rules-schema.js';

// The answers of the account-rules routes, from what the store holds (rules-schema.ts describes them).

export function travelView(meta: RulesMeta): TravelSettingsView {
  const travel = meta.travel;
  return {
    ...(travel?.settings ?? DEFAULT_TRAVEL_SETTINGS),
    updatedAt: travel?.at ?? null,
    updatedBy: travel?.by ?? null,
  };
}

export function emailRulesView(rules: EmailRules | undefined, meta: DocumentMeta | undefined) {
  return {
    ...(rules ?? DEFAULT_EMAIL_RULES),
    entries: meta?.count ?? 0,
    updatedAt: meta?.at ?? null,
    updatedBy: meta?.by ?? null,
  };
}

export function geofeedView(meta: DocumentMeta) {
  return { prefixes: meta.count, bytes: meta.bytes, updatedAt: meta.at, updatedBy: meta.by };
}
