import type { CertificateProvider, CertificateState } from './ports.js';

/**
 * The local stack's certificate step: there is no TLS at the edge locally (the API Gateway emulator
 * speaks plain HTTP), so the certificate counts as issued once DNS verified, which is when the
 * state machine calls `request`. Its validation record is the TXT challenge every claim carries.
 */
export class LocalCertificateProvider implements CertificateProvider {
  async request(): Promise<void> {}

  async status(): Promise<CertificateState> {
    return { state: 'issued' };
  }

  async release(): Promise<'released'> {
    return 'released';
  }
}
