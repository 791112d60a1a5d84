// A test or suite that cannot run on this machine says why, in one format that
// test/support/left-out-reporter.mjs lists after Jest's summary (Jest hides the logs of a file
// whose tests are all skipped).
export function leftOut(why: string): void {
  console.log(`left out: ${why}`);
}
