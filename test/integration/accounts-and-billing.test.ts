// Integration tests run in a few Jest files, each one module registry: every file loaded the AWS SDK,
// the emulators and the handlers again (~2-3 s of a core each on a 2-core machine). Each *.cases.ts
// is written like a test file of its own, its local stack started and stopped inside its describe
// block, so one stack runs at a time; it is listed here.
import './accounts.cases.js';
import './usage.cases.js';
import './usage-counter.cases.js';
import './cap-edge.cases.js';
import './usage-plan-keys.cases.js';
import './notice-ledger.cases.js';
import './admin-cli.cases.js';
import './dashboard-sessions.cases.js';
import './custom-hostnames.cases.js';
