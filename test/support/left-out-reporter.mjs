// Jest prints nothing a test file logs when every test in it is skipped, so a suite left out on
// this machine (no data snapshots beside the checkout, no Chromium) would be skipped silently. This
// reporter collects the "left out: <why>" lines every such file logs (test/support/left-out.ts) and
// prints them after the summary, skipped files included.
import { relative } from 'node:path';

export default class LeftOutReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.notes = [];
  }

  onTestResult(_test, result) {
    for (const entry of result.console ?? []) {
      if (entry.message.startsWith('left out: ')) {
        this.notes.push(`${relative(this.rootDir, result.testFilePath)}: ${entry.message.slice(10)}`);
      }
    }
  }

  onRunComplete() {
    if (this.notes.length === 0) return;
    const lines = [...new Set(this.notes)].sort().map((note) => `  - ${note}`);
    process.stderr.write(`\nLeft out on this machine (and why):\n${lines.join('\n')}\n`);
  }
}
