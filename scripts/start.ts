import { ensureDataLayer } from '../layers/build/data-layer.js';
import { startLocalStack } from './local/stack.js';

// `npm start`: the whole API on this machine (see README, "Run it locally").
const port = Number(process.env.PORT ?? 8787);

// Built on first run, and rebuilt when this source builds another layer format than the one built.
await ensureDataLayer({ dataDir: process.env.NETINTEL_DATA_PATH });

const stack = await startLocalStack({
  port,
  host: process.env.HOST ?? '127.0.0.1',
  log: (line) => console.log(line),
});

console.log(`
netintel is running at ${stack.url}
  data dir:        ${stack.dataDir}
  dev account:     ${stack.dev.accountId} (plan pro)
  publishable key: ${stack.dev.publishableKey}   (origins http://localhost:*, http://127.0.0.1:*)
  secret key:      ${stack.dev.secretKey}
  API reference:   ${stack.url}/docs

Try:
  curl -s ${stack.url}/v1/lookup/8.8.8.8 -H "Authorization: Bearer ${stack.dev.secretKey}"
Ctrl-C stops it; stored data is kept in the data dir.
`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping...`);
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
