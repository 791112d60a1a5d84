// The risk unit tests (functions/lib/risk and its baseline store), one Jest file as in the other
// folders. Each *.cases.ts is written like a test file of its own; it is listed here.
import './baseline-store.cases.js';
import './travel.cases.js';
import './travel-settings.cases.js';
