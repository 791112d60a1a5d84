import { EMAIL_LIST_FILES } from '../email/lists.js';
import { SECURITY_FILES } from '../security/manifest.js';

// Where each refreshed artifact lives, relative to a data root: the layer's `/opt/data` (locally
// `layers/data`) or a version prefix in S3 (`data/<version>/`). Kept apart from the builders so that
// functions reading artifacts do not bundle them.

/** The email lists' manifest (beside the lists; loadEmailLists ignores it). */
export const EMAIL_MANIFEST_FILE = 'lists-manifest.json';

/** The refresh's MX evidence (functions/lib/refresh/mx-learn.ts; loadEmailLists ignores it). */
export const MX_OBSERVATIONS_FILE = 'mx-observations.txt';

/**
 * The lists refresh's last run, published or rejected (`{"checks": [...]}`, the IP checks' form):
 * beside the versions (`data/` in S3, the data root locally), outside any version. A rejected run
 * publishes nothing, so this is where GET /v1/data learns that it asked (data-report.ts).
 */
export const LISTS_CHECKS_FILE = 'lists-last-check.json';

/** Artifact paths, relative to a data root (the layer's `/opt/data`, or a version prefix in S3). */
export const ARTIFACT_PATHS = {
  securityTable: `security/${SECURITY_FILES.table}`,
  securityManifest: `security/${SECURITY_FILES.manifest}`,
  disposable: `email/${EMAIL_LIST_FILES.disposable}`,
  allowlist: `email/${EMAIL_LIST_FILES.allowlist}`,
  mxHosts: `email/${EMAIL_LIST_FILES.mxHosts}`,
  mxObservations: `email/${MX_OBSERVATIONS_FILE}`,
  emailManifest: `email/${EMAIL_MANIFEST_FILE}`,
} as const;
