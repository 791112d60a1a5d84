// CloudWatch metrics (EMF, namespace `netintel`) of the data refresh. The alarm of
// infra/constructs/data-refresh.ts watches REFRESH_METRICS.rejected.

export const REFRESH_METRICS = {
  /** 1 per refresh refused by validation (current data kept); 0 per refresh accepted. */
  rejected: 'refreshRejected',
  /** 1 per version published. */
  published: 'refreshPublished',
} as const;

export const REFRESH_METRICS_NAMESPACE = 'netintel';
