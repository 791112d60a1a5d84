// The refresh integration tests run as one Jest file, one module registry (see ../api.test.ts).
import './cli.cases.js';
import './construct.cases.js';
import './http-fetcher.cases.js';
import './real-snapshots.cases.js';
import './s3-refresh.cases.js';
