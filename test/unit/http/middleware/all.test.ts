// The middlewares' own tests (<name>.cases.ts) and fuzz tests (<name>.fuzz.cases.ts), one file each,
// run in one Jest file: each Jest file loads the whole pipeline's modules anew, which costs more
// than the tests themselves.
import './admission.cases.js';
import './admission.fuzz.cases.js';
import './billing.cases.js';
import './billing.fuzz.cases.js';
import './cors.cases.js';
import './cors.fuzz.cases.js';
import './domain-errors.cases.js';
import './domain-errors.fuzz.cases.js';
import './error-response.cases.js';
import './error-response.fuzz.cases.js';
import './hostname-binding.cases.js';
import './hostname-binding.fuzz.cases.js';
import './http-request.cases.js';
import './http-request.fuzz.cases.js';
import './job-reservation.cases.js';
import './job-reservation.fuzz.cases.js';
import './principal.cases.js';
import './principal.fuzz.cases.js';
import './refund-on-failure.cases.js';
import './refund-on-failure.fuzz.cases.js';
import './response-headers.cases.js';
import './response-headers.fuzz.cases.js';
import './trace-annotations.cases.js';
import './trace-annotations.fuzz.cases.js';
import './usage-events.cases.js';
import './usage-events.fuzz.cases.js';
import './usage-notices.cases.js';
import './usage-notices.fuzz.cases.js';
import './validate-input.cases.js';
import './validate-input.fuzz.cases.js';
