// The IP answers of test mode (docs/test-mode.md): the documentation ranges of tables.ts, each a
// fixed place, network and set of security flags, answered by the live lookup's own answer builders
// (ip/lookup.ts lookupAnswer, geoAnswer) with every derived group computed for the place by its own
// code (locatedAt). No answer comes from the live databases (they are opened, for the data version
// the answer names, never looked up) and none from DNS. An address outside the
// ranges is not in the test data: the lookups answer it as live answers an unknown address (found
// false), and /v1/geo, whose address is the caller's own connection, answers with the first
// range's place so that a page under development gets a location.
import { type Clock, systemClock } from '../clock.js';
import { NO_NETWORK } from '../ip/ip-data.js';
import {
  geoAnswer,
  type IpLookup,
  type Located,
  locatedAt,
  lookupAnswer,
  wantsNetwork,
} from '../ip/lookup.js';
import { testClassifier, testNetworkOf } from './ip-places.js';
import { TEST_NETWORKS, type TestNetwork } from './tables.js';

export { createTestIpLocator, isTestNetwork, testHostname } from './ip-places.js';

/**
 * A range's place with its derived groups, built on the first call that asks for that range (a
 * group's calendar costs tens of milliseconds; a test run seldom asks for all four) and kept.
 */
const located = new Map<TestNetwork, Located>();
function locatedOf(net: TestNetwork): Located {
  let at = located.get(net);
  if (!at) {
    at = locatedAt({ ...net.place, locationSource: 'database' });
    located.set(net, at);
  }
  return at;
}

/**
 * The test answers, over the instance's live lookup (`live`) for what stays live: the data report,
 * the data version and its status. Each answer first opens the live data as a live answer does (and
 * reads it as one does, so a newer version is still looked for): the `X-Data-Version` of a test
 * answer names the live version even where no live call came first (a Lambda container serving test
 * calls only), and with no live data to open it says what a live answer would say.
 */
export function createTestIpLookup(deps: { live: IpLookup; clock?: Clock }): IpLookup {
  const clock = deps.clock ?? systemClock;
  return {
    async lookup(ip, options = {}) {
      await deps.live.ready();
      const net = testNetworkOf(ip);
      const network = net && wantsNetwork(options.fields) ? net.network : NO_NETWORK;
      return lookupAnswer(ip, net ? locatedOf(net) : null, network, options, clock.now(), testClassifier);
    },
    async geo(ip, options = {}) {
      await deps.live.ready();
      // The caller's own address: in a range, its place; anywhere else, the first range's.
      const net = testNetworkOf(ip) ?? TEST_NETWORKS[0]!;
      const network = wantsNetwork(options.fields) ? net.network : NO_NETWORK;
      return geoAnswer(ip, locatedOf(net), network, options, clock.now(), testClassifier);
    },
    manifest: () => deps.live.manifest(),
    dataVersion: () => deps.live.dataVersion(),
    ready: () => deps.live.ready(),
  };
}
