import { ensureDataLayer } from '../layers/build/data-layer.js';

// Builds the data layer unless the current one is there (npm test runs it beside the type check),
// from the default sources whatever the environment names (the tests' data; layers/build/data-layer.ts).
await ensureDataLayer({ dataDir: process.env.NETINTEL_DATA_PATH, sources: {} });
