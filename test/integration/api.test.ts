// Integration tests run in a few Jest files, each one module registry: every file loaded the AWS SDK,
// the emulators and the handlers again (~2-3 s of a core each on a 2-core machine). Each *.cases.ts
// is written like a test file of its own, its local stack started and stopped inside its describe
// block, so one stack runs at a time; it is listed here.
import './foundation.cases.js';
import './contracts.cases.js';
import './ip.cases.js';
import './email.cases.js';
import './signup.cases.js';
import './risk.cases.js';
import './docs.cases.js';
import './compression.cases.js';
import './response-headers.cases.js';
import './hostile-headers.cases.js';
import './geo-edge.cases.js';
import './gateway-cors.cases.js';
import './emulator-loopback.cases.js';
import './emulator-tables.cases.js';
import './tracing.cases.js';
import './email-refresh.cases.js';
import './client-library.cases.js';
import './account-rules.cases.js';
import './hung-dependencies.cases.js';
import './local-timeouts.cases.js';
import './sqs-pollers.cases.js';
