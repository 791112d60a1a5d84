// The email unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './check.cases.js';
import './disposable.cases.js';
import './dns-cache.cases.js';
import './dns-canary.cases.js';
import './lists.cases.js';
import './lookup-slots.cases.js';
import './mx-invalid-host.cases.js';
import './mx-status.cases.js';
import './normalize.cases.js';
import './property.cases.js';
import './relay.cases.js';
import './rules.cases.js';
import './syntax.cases.js';
import './typo.cases.js';
import './verdict.cases.js';
