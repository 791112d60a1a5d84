// The tests that drive Chromium run as one Jest file: one browser at a time beside the other Jest
// worker (two Chromiums and two workers on a 2-core machine slowed every file about twofold), and one
// module registry. Each *.cases.ts is written like a test file of its own; it is listed here.
import './browser.cases.js';
import './dashboard-e2e.cases.js';
import './dashboard-ui.cases.js';
import './widget.cases.js';
