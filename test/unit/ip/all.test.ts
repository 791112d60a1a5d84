// The ip unit tests run as one Jest file: one module registry loads the shared modules once
// (each file loaded them again, ~0.5-2 s each on 2 cores). Each *.cases.ts is written like a test file
// of its own; it is listed here.
import './account-geofeed.cases.js';
import './asn.cases.js';
import './bounded-cache.cases.js';
import './build-ip-data.cases.js';
import './country-table.cases.js';
import './cloudfront-headers.cases.js';
import './fields.cases.js';
import './groups.cases.js';
import './locator.cases.js';
import './lookup.cases.js';
import './parse-ip.cases.js';
import './postal-index.cases.js';
import './sources.cases.js';
import './special-ranges.cases.js';
import './subdivisions.cases.js';
import './swaps.cases.js';
