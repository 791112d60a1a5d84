import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with signup-check (see RouteExample): test/integration/docs.test.ts replays each one.
export const examples: Record<string, RouteExample> = {
  risky: {
    summary: 'A disposable address from a data centre, sent by a script',
    body: {
      email: 'someone@mailinator.com',
      ip: '8.8.8.8',
      userAgent: 'curl/8.4.0',
    },
    response: {
      email: {
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
      ip: {
        ip: '8.8.8.8',
        country: 'US',
        asn: 15169,
        asOrganization: 'Google LLC',
        security: {
          isTor: false,
          isVpn: false,
          isDatacenter: true,
          isThreat: false,
          isSanctionedNetwork: false,
        },
      },
      emailDomainAgeDays: 8813,
      score: 100,
      verdict: 'reject',
      reasons: ['disposable_domain', 'ip_datacenter', 'automated_user_agent'],
    },
  },
  genuine: {
    summary: 'A Gmail address from a London ISP in Safari',
    body: {
      email: 'jane.doe@gmail.com',
      ip: '81.2.69.142',
      userAgent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
    },
    response: {
      email: {
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
      ip: {
        ip: '81.2.69.142',
        country: 'GB',
        asn: 20712,
        asOrganization: 'Andrews & Arnold Ltd',
        security: {
          isTor: false,
          isVpn: false,
          isDatacenter: false,
          isThreat: false,
          isSanctionedNetwork: false,
        },
      },
      emailDomainAgeDays: null,
      score: 0,
      verdict: 'accept',
      reasons: [],
    },
  },
};
