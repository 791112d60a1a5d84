// Unit tests of the webhooks area, in one module registry (CONTRIBUTING.md).
import './destination.cases.js';
import './signature.cases.js';
import './endpoints.cases.js';
import './manage.cases.js';
import './delivery.cases.js';
import './announce.cases.js';
import './post.cases.js';
