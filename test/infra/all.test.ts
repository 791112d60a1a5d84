// The template tests run as one Jest file: each file loads aws-cdk-lib and synthesizes the stack
// again (~2 s each on 2 cores), which one module registry does once. Each *.cases.ts is written
// like a test file of its own; it is listed here.
import './stack.cases.js';
import './production.cases.js';
import './sizing.cases.js';
import './custom-hostnames.cases.js';
import './dashboard.cases.js';
import './outputs.cases.js';
import './nag.cases.js';
import './webhooks.cases.js';
import './context.cases.js';
