// Integration tests run in a few Jest files, each one module registry: every file loaded the AWS SDK,
// the emulators and the handlers again (~2-3 s of a core each on a 2-core machine). Each *.cases.ts
// is written like a test file of its own, its local stack started and stopped inside its describe
// block, so one stack runs at a time; it is listed here.
import './jobs-large.cases.js';
import './jobs-hostile-bodies.cases.js';
import './jobs-cli.cases.js';
import './jobs.cases.js';
import './jobs-list.cases.js';
import './jobs-idempotency.cases.js';
import './jobs-multipart.cases.js';
import './webhooks.cases.js';
import './test-mode.cases.js';
