// The refresh unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './geonames.cases.js';
import './cli-refusals.cases.js';
import './data-report.cases.js';
import './version.cases.js';
import './dir-store.cases.js';
