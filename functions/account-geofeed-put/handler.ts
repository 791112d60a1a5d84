import { ruleChange } from '../lib/accounts/account-rules.js';
import { setGeofeed } from '../lib/accounts/rule-changes.js';
import { GEOFEED_MEDIA_TYPES, RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import { documentTag, entityTag } from '../lib/accounts/rules-tags.js';
import { geofeedView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { decodedBody, mediaType } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError, ValidationError } from '../lib/http/errors.js';
import { validateHeaders } from '../lib/http/validate.js';
import { ACCOUNT_GEOFEED_MAX_BYTES } from '../lib/ip/account-geofeed.js';
import { logger } from '../lib/observability.js';
import { routeByName } from '../routes.js';

// PUT /v1/account/geofeed: the caller's account's private geofeed, an RFC 8805 CSV (docs/rules.md),
// replacing any. All or nothing: one bad row refuses the feed (400 invalid_geofeed, each bad row
// named by its line). In force on the IP routes, the signup check's ip and the risk check within
// KEY_CACHE_SECONDS. With If-Match, only while the feed still has that tag (412 rules_changed
// otherwise); the answer's ETag names the feed saved (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-geofeed-put'),
  input: (req) => {
    const { 'If-Match': ifMatch } = validateHeaders(RulesChangeHeaders, req);
    const type = mediaType(req);
    if (!(GEOFEED_MEDIA_TYPES as readonly string[]).includes(type ?? '')) {
      throw new HttpError(
        'unsupported_media_type',
        `Send the geofeed as ${GEOFEED_MEDIA_TYPES.join(' or ')} (RFC 8805 rows).`,
      );
    }
    // Plain or gzip (Content-Encoding: gzip), 1 MiB at most once decompressed.
    const csv = decodedBody(req, ACCOUNT_GEOFEED_MAX_BYTES, 'invalid_body');
    if (!csv || csv.length === 0)
      throw new ValidationError('invalid_body', 'The body is empty: send the CSV.');
    return { csv, ifMatch };
  },
  run: async ({ csv, ifMatch }, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    const meta = await setGeofeed(rulesStore(services), principal.accountId, csv, change, logger, {
      ifMatch,
    });
    return { json: geofeedView(meta), headers: { ETag: entityTag(documentTag(meta)) } };
  },
});
