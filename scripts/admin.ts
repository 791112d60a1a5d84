import { runAdmin } from './admin-cli.js';

// `npm run admin -- <command>`: see scripts/admin-cli.ts and the README.
process.exitCode = await runAdmin(process.argv.slice(2), {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
