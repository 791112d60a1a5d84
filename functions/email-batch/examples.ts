import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with email-batch (see RouteExample): test/integration/docs.test.ts replays each one.
export const examples: Record<string, RouteExample> = {
  mixed: {
    summary: 'A good address, a typo and a disposable one',
    body: {
      emails: ['jane.doe@gmail.com', 'jane@gmial.com', 'someone@mailinator.com'],
    },
    response: {
      results: [
        {
          email: 'jane.doe@gmail.com',
          domain: 'gmail.com',
          syntaxValid: true,
          isDisposable: false,
          normalizedEmail: 'jane.doe@gmail.com',
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
        {
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
        {
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
      ],
    },
  },
};
