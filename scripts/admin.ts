import { runAdmin } from './admin-cli.js';

// `npm run admin -- <command>`: see scripts/admin-cli.ts and docs/operations.md.
process.exitCode = await runAdmin(process.argv.slice(2), {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
