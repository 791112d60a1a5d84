import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with email-validate (see RouteExample): test/integration/docs.test.ts replays each one.
export const examples: Record<string, RouteExample> = {
  typo: {
    summary: 'A Gmail typo (and a disposable domain)',
    body: {
      email: 'jane@gmial.com',
    },
    response: {
      email: 'jane@gmial.com',
      domain: 'gmial.com',
      syntaxValid: true,
      isDisposable: true,
      normalizedEmail: 'jane@gmial.com',
      canonicalEmail: 'jane@gmial.com',
      disposableSource: 'list',
      isFreeProvider: false,
      isRoleAccount: false,
      didYouMean: 'jane@gmail.com',
      mx: {
        status: 'no_domain',
        host: null,
      },
      verdict: 'reject',
      reasons: ['domain_not_found', 'disposable_domain', 'typo_suspected'],
    },
  },
  disposable: {
    summary: 'A disposable address',
    body: {
      email: 'someone@mailinator.com',
    },
    response: {
      email: 'someone@mailinator.com',
      domain: 'mailinator.com',
      syntaxValid: true,
      isDisposable: true,
      normalizedEmail: 'someone@mailinator.com',
      canonicalEmail: 'someone@mailinator.com',
      disposableSource: 'list',
      isFreeProvider: false,
      isRoleAccount: false,
      didYouMean: null,
      mx: {
        status: 'found',
        host: 'mail.mailinator.com',
      },
      verdict: 'reject',
      reasons: ['disposable_domain'],
    },
  },
  valid: {
    summary: 'A Gmail address with a +tag',
    body: {
      email: 'Jane.Doe+news@GMail.com',
    },
    response: {
      email: 'Jane.Doe+news@GMail.com',
      domain: 'gmail.com',
      syntaxValid: true,
      isDisposable: false,
      normalizedEmail: 'jane.doe+news@gmail.com',
      canonicalEmail: 'janedoe@gmail.com',
      disposableSource: null,
      isFreeProvider: true,
      isRoleAccount: false,
      didYouMean: null,
      mx: {
        status: 'found',
        host: 'gmail-smtp-in.l.google.com',
      },
      verdict: 'accept',
      reasons: [],
    },
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
      isRoleAccount: false,
      didYouMean: null,
      mx: null,
      verdict: 'reject',
      reasons: ['invalid_syntax'],
    },
  },
};
