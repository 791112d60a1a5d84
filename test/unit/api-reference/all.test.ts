// The API reference's unit tests (functions/api-reference: the OpenAPI document and the /docs
// site), one Jest file as in the other folders. Each *.cases.ts is written like a test file of its
// own; it is listed here.
import './openapi.cases.js';
