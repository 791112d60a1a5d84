// The tests of the deployer's own MMDB download (functions/lib/refresh/mmdb-download.ts) run as one
// Jest file: one module registry loads the shared modules once. Each *.cases.ts is written like a
// test file of its own; it is listed here.
import './download.cases.js';
import './candidate.cases.js';
import './networks.cases.js';
import './ip-refresh-guard.cases.js';
