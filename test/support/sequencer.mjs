import Sequencer from '@jest/test-sequencer';

// On a fresh clone Jest has no record of how long each file took, so it starts the largest files
// first. The slowest ones are not the largest, and two of them (the bundle build and Chromium) use
// more than one core: started late, they ran beside everything else and made a fresh clone's run
// ~50 s longer than a second run. Start the known slow files first, slowest first; Jest orders the
// rest as usual.
export const SLOW_FIRST = [
  'test/integration/chromium.test.ts',
  'test/integration/jobs-large.test.ts',
  'test/integration/jobs-crash.test.ts',
  'test/integration/accounts.test.ts',
  'test/infra/bundles.test.ts',
  'test/integration/jobs.test.ts',
  'test/infra/all.test.ts',
  'test/infra/dashboard-bundle.test.ts',
  'test/integration/usage.test.ts',
  'test/integration/jobs-cli.test.ts',
  'test/integration/foundation.test.ts',
  'test/integration/jobs-list.test.ts',
  'test/integration/docs.test.ts',
  'test/integration/refresh/cli.test.ts',
  'test/integration/jobs-hostile-bodies.test.ts',
  'test/unit/ip/asn.test.ts',
  'test/unit/ip/lookup.test.ts',
];

export default class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => {
      const i = SLOW_FIRST.findIndex((path) => test.path.endsWith(path));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep Jest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
