// The jobs-cli unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './args.cases.js';
import './keep-columns.cases.js';
import './list-file.cases.js';
import './progress.cases.js';
import './api-errors.cases.js';
import './server-text.cases.js';
