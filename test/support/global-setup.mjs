// The integration tests serve real data: build the layer once if this checkout has none yet, or one
// of another format than this source builds (layers/build/data-layer.ts). Jest loads this file as
// plain ESM: the TypeScript module comes in through tsx's API.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { ensureDataLayer } = await tsImport('../../layers/build/data-layer.ts', import.meta.url);
  await ensureDataLayer({
    dataDir: process.env.NETINTEL_DATA_PATH,
    // The default sources, whatever GEO_CITY_MMDB and the like name (test/unit/ip/sources.cases.ts
    // looks up a developer's own files on data of its own).
    sources: {},
    log: (line) => console.log(`\n${line}`),
  });
}
