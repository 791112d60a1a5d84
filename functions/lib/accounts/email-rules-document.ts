import {
  type CompiledEmailRules,
  compileEmailRules,
  type EmailRules,
  EmailRulesSchema,
} from '../email/rules.js';

// The email rules as the rules store keeps them (accounts/account-rules.ts): the normalised
// document's JSON, read back through the schema again.

export function emailRulesOf(body: Buffer): EmailRules {
  return EmailRulesSchema.parse(JSON.parse(body.toString('utf8')));
}

export function compiledEmailRulesOf(body: Buffer): CompiledEmailRules {
  return compileEmailRules(emailRulesOf(body));
}
