// Public surface of the email-check domain module.

export {
  MAX_ADDRESS_OCTETS,
  MAX_DOMAIN_OCTETS,
  MAX_LABEL_OCTETS,
  MAX_LOCAL_PART_OCTETS,
} from './address-shape.js';
export {
  createEmailChecker,
  DEFAULT_CONCURRENCY,
  type EmailChecker,
  type EmailCheckerOptions,
  invalidSyntaxResult,
} from './check.js';
export { DISPOSABLE_SOURCES, type DisposableSource } from './disposable.js';
export {
  createEmailLists,
  EMAIL_LIST_FILES,
  type EmailLists,
  emailDataDir,
  loadEmailLists,
  parseListText,
} from './lists.js';
export { InMemoryMxHostTable, MX_HOST_SEEDS, type MxHostTable, mxHostSeeds } from './mx-hosts.js';
export { DEFAULT_DNS_BUDGET_MS, MX_STATUSES, type MxResult, type MxStatus } from './mx-status.js';
export {
  DEFAULT_POLICY_VERDICT,
  type FixedReasonCode,
  POLICY_REASONS,
  type PolicyReasonCode,
  type PolicyVerdict,
  type PolicyVerdicts,
  REASON_CODES,
  REASON_VERDICT,
  Reason,
  type ReasonCode,
  VERDICTS,
  type Verdict,
} from './reasons.js';
export { relayProviderOf } from './relay.js';
export {
  type CompiledEmailRules,
  compileEmailRules,
  DEFAULT_EMAIL_RULES,
  EMAIL_RULES_MAX_ENTRIES,
  type EmailRules,
  type EmailRulesInput,
  EmailRulesSchema,
  emailRuleEntries,
  RELAY_ALIAS_POLICIES,
  type RelayAliasPolicy,
} from './rules.js';
export { type EmailCheckResult, EmailCheckResultSchema, MxResultSchema } from './schema.js';
export { UTF8_LOCAL_PART_RULE } from './syntax.js';
