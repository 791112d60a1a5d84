import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with jobs-results (see RouteExample): test/integration/docs.cases.ts replays each one.
export const examples: Record<string, RouteExample> = {
  csv: {
    summary: 'The results of that job',
    params: {
      id: '1f0c80b2-c823-418b-8e2e-1e3d19c0d855',
    },
    response:
      'email,normalized_email,verdict,reasons,syntax_valid,is_disposable,disposable_source,is_free_provider,is_role_account,did_you_mean,mx_status,mx_host,is_relay_alias,relay_provider\r\njane.doe@gmail.com,jane.doe@gmail.com,accept,,true,false,,true,false,,found,gmail-smtp-in.l.google.com,false,\r\njane@gmial.com,jane@gmial.com,reject,domain_not_found;disposable_domain;typo_suspected,true,true,list,false,false,jane@gmail.com,no_domain,,false,\r\nsomeone@mailinator.com,someone@mailinator.com,reject,disposable_domain,true,true,list,false,false,,found,mail.mailinator.com,false,\r\njane.doe@gmail.com,jane.doe@gmail.com,accept,,true,false,,true,false,,found,gmail-smtp-in.l.google.com,false,\r\n',
  },
};
