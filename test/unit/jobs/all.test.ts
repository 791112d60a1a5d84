// The jobs unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './chunking.cases.js';
import './csv-input.cases.js';
import './fail-job.cases.js';
import './job-creation.cases.js';
import './job-json-scan.cases.js';
import './job-results.cases.js';
import './multipart.cases.js';
import './results-csv-formula.cases.js';
import './results-csv.cases.js';
import './s3-keys.cases.js';
import './queue-handlers.cases.js';
import './local-services.cases.js';
import './process-chunk.cases.js';
import './settle-at-start.cases.js';
