// The dns integration tests run as one Jest file, one module registry (see ../api.test.ts).
import './burst.cases.js';
import './canary.cases.js';
import './mx-invalid-host.cases.js';
import './mx-status.cases.js';
import './reverse-dns.cases.js';
import './real-lists.cases.js';
import './warm-resolver.cases.js';
