// CloudWatch metrics (EMF, namespace `netintel`) of the data refresh. The alarms of
// infra/constructs/data-refresh.ts watch REFRESH_METRICS.rejected and .missing.

export const REFRESH_METRICS = {
  /** 1 per refresh refused by validation (current data kept); 0 per refresh accepted. */
  rejected: 'refreshRejected',
  /** 1 per version published. */
  published: 'refreshPublished',
  /**
   * Datasets still missing after a run (functions/lib/data-report.ts: postal codes, subdivision
   * names, security lists...): 0 once the data is complete. The alarm treats no data as missing, so a
   * new deployment alarms until its first refresh has filled everything.
   */
  missing: 'datasetsMissing',
} as const;

export const REFRESH_METRICS_NAMESPACE = 'netintel';
