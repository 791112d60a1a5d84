// The gateway unit tests (functions/lib/gateway: the API Gateway and edge settings the stack and
// the local gateway share) run as one Jest file, as test/unit/http/all.test.ts says why. Each
// *.cases.ts is written like a test file of its own; it is listed here.
import './edge-origin.cases.js';
import './gateway-responses.cases.js';
import './gateway-settings.cases.js';
import './response-encoding.cases.js';
