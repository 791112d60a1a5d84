import { resolve } from 'node:path';
import { writeDashboard } from './build.js';

// `tsx web/dashboard/write.ts OUT_DIR`: the dashboard's files into OUT_DIR. CDK's asset bundling
// runs it (infra/constructs/edge.ts): bundling hooks are synchronous and esbuild's plugins are not,
// so the build runs in a process of its own.
const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: tsx web/dashboard/write.ts OUT_DIR');
  process.exit(2);
}
const built = await writeDashboard(resolve(outDir));
console.log(
  `dashboard: ${built.files.length} files, first page ${(built.firstPageGzipBytes / 1024).toFixed(1)} KB gzipped`,
);
