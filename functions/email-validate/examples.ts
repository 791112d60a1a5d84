import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with email-validate (see RouteExample): test/integration/docs.cases.ts replays each one.
// The batch check (email-batch/examples.ts) and the signup check answer some of the same addresses.

/** POST /v1/email/validate of jane@gmial.com: a typo of gmail.com, on an unregistered domain. */
export const GMAIL_TYPO = {
  email: 'jane@gmial.com',
  domain: 'gmial.com',
  syntaxValid: true,
  isDisposable: true,
  normalizedEmail: 'jane@gmial.com',
  canonicalEmail: 'jane@gmial.com',
  disposableSource: 'list',
  isFreeProvider: false,
  isRelayAlias: false,
  relayProvider: null,
  isRoleAccount: false,
  didYouMean: 'jane@gmail.com',
  mx: {
    status: 'no_domain',
    host: null,
  },
  verdict: 'reject',
  reasons: ['domain_not_found', 'disposable_domain', 'typo_suspected'],
};

/** POST /v1/email/validate of someone@mailinator.com. */
export const MAILINATOR = {
  email: 'someone@mailinator.com',
  domain: 'mailinator.com',
  syntaxValid: true,
  isDisposable: true,
  normalizedEmail: 'someone@mailinator.com',
  canonicalEmail: 'someone@mailinator.com',
  disposableSource: 'list',
  isFreeProvider: false,
  isRelayAlias: false,
  relayProvider: null,
  isRoleAccount: false,
  didYouMean: null,
  mx: {
    status: 'found',
    host: 'mail.mailinator.com',
  },
  verdict: 'reject',
  reasons: ['disposable_domain'],
};

/** POST /v1/email/validate of Jane.Doe+news@GMail.com: a Gmail mailbox with a +tag, in mixed case. */
export const GMAIL_WITH_TAG = {
  email: 'Jane.Doe+news@GMail.com',
  domain: 'gmail.com',
  syntaxValid: true,
  isDisposable: false,
  normalizedEmail: 'jane.doe+news@gmail.com',
  canonicalEmail: 'janedoe@gmail.com',
  disposableSource: null,
  isFreeProvider: true,
  isRelayAlias: false,
  relayProvider: null,
  isRoleAccount: false,
  didYouMean: null,
  mx: {
    status: 'found',
    host: 'gmail-smtp-in.l.google.com',
  },
  verdict: 'accept',
  reasons: [],
};

export const examples: Record<string, RouteExample> = {
  typo: {
    summary: 'A Gmail typo (and a disposable domain)',
    body: {
      email: 'jane@gmial.com',
    },
    response: GMAIL_TYPO,
  },
  disposable: {
    summary: 'A disposable address',
    body: {
      email: 'someone@mailinator.com',
    },
    response: MAILINATOR,
  },
  valid: {
    summary: 'A Gmail address with a +tag',
    body: {
      email: 'Jane.Doe+news@GMail.com',
    },
    response: GMAIL_WITH_TAG,
  },
  invalid: {
    summary: 'Not an address: a result, not an error',
    body: {
      email: 'not an address',
    },
    response: {
      email: 'not an address',
      domain: null,
      syntaxValid: false,
      isDisposable: false,
      normalizedEmail: null,
      canonicalEmail: null,
      disposableSource: null,
      isFreeProvider: false,
      isRelayAlias: false,
      relayProvider: null,
      isRoleAccount: false,
      didYouMean: null,
      mx: null,
      verdict: 'reject',
      reasons: ['invalid_syntax'],
    },
  },
};
