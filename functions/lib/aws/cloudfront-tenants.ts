import { createHash } from 'node:crypto';
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  type DistributionTenant,
  EntityAlreadyExists,
  EntityNotFound,
  GetDistributionTenantByDomainCommand,
  GetManagedCertificateDetailsCommand,
  PreconditionFailed,
  ResourceNotDisabled,
  UpdateDistributionTenantCommand,
} from '@aws-sdk/client-cloudfront';
import type { CertificateProvider, CertificateState } from '../custom-hostnames/ports.js';
import { CALL_BOUNDS, type CallBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

// The AWS CertificateProvider: one CloudFront distribution tenant per custom hostname on the
// multi-tenant distribution of infra/constructs/custom-hostnames.ts, with a CloudFront-managed ACM
// certificate. CloudFront validates that certificate over HTTP through the customer's CNAME to the
// connection group's routing endpoint (ValidationTokenHost "cloudfront"), so it needs no DNS record
// of its own; `request` is only called once that CNAME (and our TXT challenge) verified.
// Deliberately thin: it maps the port onto five API calls and is exercised against AWS only.
// The client is bundled into the verifier, the one function that loads this module
// (infra/bundling.ts BUNDLED_PER_FUNCTION): the distribution-tenant commands are recent and the
// Lambda runtime's SDK version floats. Named imports, so the bundle keeps these commands only.

export interface CloudFrontTenantsConfig {
  /** The multi-tenant distribution (CUSTOM_HOSTNAME_DISTRIBUTION_ID). */
  distributionId: string;
  /** Its connection group (CUSTOM_HOSTNAME_CONNECTION_GROUP_ID): the CNAME target's owner. */
  connectionGroupId: string;
  /** The bound of its calls (call-bounds.ts controlPlane, with the configuration's replacements). */
  bound?: CallBound;
}

/** Tenant names are unique per AWS account, 3-128 characters: a stable digest of the hostname. */
export function tenantName(hostname: string): string {
  return `netintel-${createHash('sha256').update(hostname).digest('hex').slice(0, 32)}`;
}

/** ManagedCertificateDetails.CertificateStatus values that will not turn into "issued". */
const CERTIFICATE_FAILED = new Set(['failed', 'expired', 'revoked', 'inactive', 'validation-timed-out']);

export class CloudFrontTenantProvider implements CertificateProvider {
  private readonly client: CloudFrontClient;

  constructor(private readonly config: CloudFrontTenantsConfig) {
    // CloudFront is a global service; its API lives in us-east-1.
    this.client = traceClient(
      new CloudFrontClient({
        ...clientBounds(config.bound ?? CALL_BOUNDS.controlPlane),
        region: 'us-east-1',
      }),
    );
  }

  async request(hostname: string): Promise<void> {
    try {
      await this.client.send(
        new CreateDistributionTenantCommand({
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
      if (!(err instanceof EntityAlreadyExists)) throw err;
    }
  }

  async status(hostname: string): Promise<CertificateState> {
    const tenant = await this.tenant(hostname);
    if (!tenant?.tenant.Id)
      return { state: 'failed', reason: 'the CloudFront distribution tenant is missing' };
    const res = await this.client.send(
      new GetManagedCertificateDetailsCommand({ Identifier: tenant.tenant.Id }),
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
        new UpdateDistributionTenantCommand({ Id: tenant.Id, IfMatch: etag, Enabled: false }),
      );
      return 'pending';
    }
    if (tenant.Status !== 'Deployed') return 'pending';
    try {
      await this.client.send(new DeleteDistributionTenantCommand({ Id: tenant.Id, IfMatch: etag }));
      return 'released';
    } catch (err) {
      if (err instanceof EntityNotFound) return 'released';
      if (err instanceof ResourceNotDisabled || err instanceof PreconditionFailed) return 'pending';
      throw err;
    }
  }

  private async tenant(hostname: string): Promise<{ tenant: DistributionTenant; etag?: string } | undefined> {
    try {
      const res = await this.client.send(new GetDistributionTenantByDomainCommand({ Domain: hostname }));
      return res.DistributionTenant ? { tenant: res.DistributionTenant, etag: res.ETag } : undefined;
    } catch (err) {
      if (err instanceof EntityNotFound) return undefined;
      throw err;
    }
  }
}
