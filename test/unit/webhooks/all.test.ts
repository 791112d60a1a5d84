// Unit tests of the webhooks area, in one module registry (CONTRIBUTING.md).
import './signature.cases.js';
