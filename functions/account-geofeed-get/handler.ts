import { DEFAULTS_TAG, documentTag, entityTag } from '../lib/accounts/rules-tags.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError } from '../lib/http/errors.js';
import { liveAccountOf } from '../lib/test-mode/mode.js';
import { routeByName } from '../routes.js';

// GET /v1/account/geofeed: the caller's account's private geofeed, the CSV as it was uploaded, with
// its tag as ETag; the 404 of none carries the tag of none, for an upload that must not replace one
// made meanwhile (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-geofeed-get'),
  input: () => ({}),
  run: async (_input, { principal, services }) => {
    const stored = await rulesStore(services).readDocument(liveAccountOf(principal.accountId), 'geofeed');
    if (!stored)
      throw new HttpError(
        'geofeed_not_found',
        'This account has no geofeed: PUT one to /v1/account/geofeed.',
        { ETag: entityTag(DEFAULTS_TAG) },
      );
    return {
      text: stored.body.toString('utf8'),
      contentType: 'text/csv; charset=utf-8',
      headers: {
        'Last-Modified': new Date(stored.meta.at).toUTCString(),
        ETag: entityTag(documentTag(stored.meta)),
      },
    };
  },
});
