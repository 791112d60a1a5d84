import Sequencer from '@jest/test-sequencer';

// On a fresh clone Jest has no record of how long each file took, so it starts the largest files
// first. The slowest ones are not the largest, and two of them (the bundle build and Chromium) use
// more than one core: started late, they ran beside everything else and made a fresh clone's run
// ~50 s longer than a second run. Start the known slow files first, slowest first; Jest orders the
// rest as usual.
export const SLOW_FIRST = [
  'test/integration/chromium.test.ts',
  'test/integration/accounts-and-billing.test.ts',
  'test/integration/list-jobs.test.ts',
  'test/integration/api.test.ts',
  'test/integration/start-workers.test.ts',
  'test/integration/lease-crash.test.ts',
  'test/integration/jobs-crash.test.ts',
  'test/integration/fresh-data.test.ts',
  'test/integration/ip-sources.test.ts',
  'test/infra/all.test.ts',
  'test/infra/bundles.test.ts',
  'test/unit/ip/all.test.ts',
  'test/integration/refresh/all.test.ts',
  'test/unit/http/all.test.ts',
  'test/unit/jobs/all.test.ts',
  'test/infra/dashboard-bundle.test.ts',
  'test/unit/dashboard/list-preview.test.ts',
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
