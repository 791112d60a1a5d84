import { accountRules, baselineStore, userIdSecret } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError } from '../lib/http/errors.js';
import { validate } from '../lib/http/validate.js';
import type { AccountGeofeed } from '../lib/ip/account-geofeed.js';
import { type ParsedIp, parseIp } from '../lib/ip/parse-ip.js';
import { checkTravel, type Location } from '../lib/risk/travel.js';
import { baselineKey } from '../lib/risk/user-id.js';
import type { Services } from '../lib/runtime/services.js';
import { type Caller, ipLocatorFor } from '../lib/runtime/test-locator.js';
import { routeByName } from '../routes.js';
import { RiskCheckBody } from './contract.js';

/**
 * The IP's location, or 422: without coordinates there is nothing to compare (docs/api.md: Impossible
 * travel).
 */
async function locate(
  services: Services,
  caller: Caller,
  ip: ParsedIp,
  geofeed: AccountGeofeed | undefined,
): Promise<Location> {
  const found = await (await ipLocatorFor(services, caller)).locate(ip, { geofeed });
  if (found.latitude === null || found.longitude === null) {
    throw new HttpError('location_unavailable', `${ip.input} cannot be resolved to a location.`);
  }
  return {
    country: found.country,
    latitude: found.latitude,
    longitude: found.longitude,
    accuracyRadiusKm: found.accuracyRadiusKm,
  };
}

// POST /v1/risk/check (secret key): impossible travel against the user's baseline; one request.
// The location is resolved while validating, so a 422 (like a 400) is not charged.
export const handler = defineHandler({
  route: routeByName('risk-check'),
  input: async (req, principal, services) => {
    const { userId, ip, commit } = validate(RiskCheckBody, readJsonBody(req));
    // The account's own rules: its geofeed places the address, its settings judge the travel.
    const rules = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    // The contract accepted ip as an address.
    const current = await locate(services, principal, parseIp(ip)!, rules.geofeed);
    return { userId, current, commit: commit ?? true, settings: rules.travel };
  },
  run: async ({ userId, current, commit, settings }, { principal, now, services }) => ({
    json: await checkTravel(baselineStore(services), {
      key: baselineKey(userIdSecret(services), principal.accountId, userId),
      current,
      now,
      commit,
      settings,
    }),
  }),
});
