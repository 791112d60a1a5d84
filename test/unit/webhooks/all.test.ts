// Unit tests of the webhooks area, in one module registry (CONTRIBUTING.md).
import './destination.cases.js';
import './signature.cases.js';
