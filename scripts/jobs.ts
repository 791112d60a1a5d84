import { runJobs } from './jobs/cli.js';

// `npm run jobs -- <command>`: see scripts/jobs/cli.ts and docs/clients.md. npm runs scripts from the
// project directory and passes the one the command was typed in as INIT_CWD: file paths start there.
process.exitCode = await runJobs(process.argv.slice(2), {
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  status: process.stderr.isTTY ? (line) => process.stderr.write(`\r\x1b[2K${line}`) : undefined,
  env: process.env,
  cwd: process.env.INIT_CWD ?? process.cwd(),
});
