// The http unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './billing.cases.js';
import './client-error.cases.js';
import './data-dir-lock.cases.js';
import './dependency-unavailable.cases.js';
import './json-body.cases.js';
import './local-switches.cases.js';
import './local-url.cases.js';
import './match-path.cases.js';
import './pipeline.cases.js';
import './session-pipeline.cases.js';
import './request-parameters.cases.js';
import './request-validation.cases.js';
