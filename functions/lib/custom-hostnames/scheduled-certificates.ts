import type { CertificateProvider, CertificateState } from './ports.js';

/**
 * The certificate step of a function that may not touch the edge (the dashboard's hostname routes
 * in AWS): nothing is requested or released here. `release` answers `pending`, so a removal leaves
 * the record `removing` for the scheduled verifier to finish; checks stop at DNS (dashboard/hostnames.ts).
 */
export class ScheduledCertificates implements CertificateProvider {
  readonly scheduled = true;

  async request(): Promise<void> {
    throw new Error('certificates are requested by the scheduled verifier');
  }

  async status(): Promise<CertificateState> {
    return { state: 'pending' };
  }

  async release(): Promise<'pending'> {
    return 'pending';
  }
}
