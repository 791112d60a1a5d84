import { ensureDataLayer } from '../layers/build/data-layer.js';

// Builds the data layer unless the current one is there (npm test runs it beside the type check).
await ensureDataLayer({ dataDir: process.env.NETINTEL_DATA_PATH });
