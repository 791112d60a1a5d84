import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as CloudFront from '@aws-sdk/client-cloudfront';
import type { CertificateProvider, CertificateState } from '../domains/ports.js';

// The AWS CertificateProvider: one CloudFront distribution tenant per custom hostname on the
// multi-tenant distribution of infra/constructs/custom-hostnames.ts, with a CloudFront-managed ACM
// certificate. CloudFront validates that certificate over HTTP through the customer's CNAME to the
// connection group's routing endpoint (ValidationTokenHost "cloudfront"), so it needs no DNS record
// of its own; `request` is only called once that CNAME (and our TXT challenge) verified.
// Deliberately thin: it maps the port onto five API calls and is exercised against AWS only.
// The client comes from the Lambda runtime's SDK, required on first use (like SES in
// ses-notifier.ts): an `import` of an external module would be hoisted into the bundle's
// top-level imports and loaded at every cold start.

const load = createRequire(import.meta.url);

export interface CloudFrontTenantsConfig {
  /** The multi-tenant distribution (CUSTOM_HOSTNAME_DISTRIBUTION_ID). */
  distributionId: string;
  /** Its connection group (CUSTOM_HOSTNAME_CONNECTION_GROUP_ID): the CNAME target's owner. */
  connectionGroupId: string;
}

/** Tenant names are unique per AWS account, 3-128 characters: a stable digest of the hostname. */
export function tenantName(hostname: string): string {
  return `netintel-${createHash('sha256').update(hostname).digest('hex').slice(0, 32)}`;
}

/** ManagedCertificateDetails.CertificateStatus values that will not turn into "issued". */
const CERTIFICATE_FAILED = new Set(['failed', 'expired', 'revoked', 'inactive', 'validation-timed-out']);

export class CloudFrontTenantProvider implements CertificateProvider {
  private readonly sdk = load('@aws-sdk/client-cloudfront') as typeof CloudFront;
  // CloudFront is a global service; its API lives in us-east-1.
  private readonly client = new this.sdk.CloudFrontClient({ region: 'us-east-1' });

  constructor(private readonly config: CloudFrontTenantsConfig) {}

  async request(hostname: string): Promise<void> {
    try {
      await this.client.send(
        new this.sdk.CreateDistributionTenantCommand({
          DistributionId: this.config.distributionId,
          ConnectionGroupId: this.config.connectionGroupId,
          Name: tenantName(hostname),
          Domains: [{ Domain: hostname }],
          Enabled: true,
          ManagedCertificateRequest: {
            ValidationTokenHost: 'cloudfront',
            PrimaryDomainName: hostname,
            CertificateTransparencyLoggingPreference: 'enabled',
          },
        }),
      );
    } catch (err) {
      // A retry after a partial failure: the tenant is already there.
      if (!(err instanceof this.sdk.EntityAlreadyExists)) throw err;
    }
  }

  async status(hostname: string): Promise<CertificateState> {
    const tenant = await this.tenant(hostname);
    if (!tenant?.tenant.Id)
      return { state: 'failed', reason: 'the CloudFront distribution tenant is missing' };
    const res = await this.client.send(
      new this.sdk.GetManagedCertificateDetailsCommand({ Identifier: tenant.tenant.Id }),
    );
    const status = res.ManagedCertificateDetails?.CertificateStatus;
    if (status === 'issued') return { state: 'issued' };
    if (status && CERTIFICATE_FAILED.has(status)) return { state: 'failed', reason: `certificate ${status}` };
    return { state: 'pending' };
  }

  /** Disable, then delete once the disabled tenant is deployed: two or more calls. */
  async release(hostname: string): Promise<'released' | 'pending'> {
    const found = await this.tenant(hostname);
    if (!found?.tenant.Id || !found.etag) return 'released';
    const { tenant, etag } = found;
    if (tenant.Enabled !== false) {
      await this.client.send(
        new this.sdk.UpdateDistributionTenantCommand({ Id: tenant.Id, IfMatch: etag, Enabled: false }),
      );
      return 'pending';
    }
    if (tenant.Status !== 'Deployed') return 'pending';
    try {
      await this.client.send(new this.sdk.DeleteDistributionTenantCommand({ Id: tenant.Id, IfMatch: etag }));
      return 'released';
    } catch (err) {
      if (err instanceof this.sdk.EntityNotFound) return 'released';
      if (err instanceof this.sdk.ResourceNotDisabled || err instanceof this.sdk.PreconditionFailed)
        return 'pending';
      throw err;
    }
  }

  private async tenant(
    hostname: string,
  ): Promise<{ tenant: CloudFront.DistributionTenant; etag?: string } | undefined> {
    try {
      const res = await this.client.send(
        new this.sdk.GetDistributionTenantByDomainCommand({ Domain: hostname }),
      );
      return res.DistributionTenant ? { tenant: res.DistributionTenant, etag: res.ETag } : undefined;
    } catch (err) {
      if (err instanceof this.sdk.EntityNotFound) return undefined;
      throw err;
    }
  }
}
