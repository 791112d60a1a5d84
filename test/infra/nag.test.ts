import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { netintelStack, testApp } from './synth.js';

// cdk-nag 3 runs as a CDK validation plugin: findings land in the cloud assembly's
// validation-report.json, acknowledged ones are removed from it, and errors fail the synth.

interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: { constructPath: string }[];
}
interface Report {
  pluginReports: { pluginName: string; violations: Violation[] }[];
}

const outdir = mkdtempSync(join(tmpdir(), 'netintel-nag-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function nagReport(): { report: Report; synthError: unknown } {
  const app = testApp(outdir);
  netintelStack(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let synthError: unknown;
  try {
    app.synth();
  } catch (err) {
    synthError = err;
  }
  const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as Report;
  return { report, synthError };
}

describe('cdk-nag AwsSolutions', () => {
  it('finds no unacknowledged error (every acknowledgement sits next to its resource with a reason)', () => {
    const { report, synthError } = nagReport();
    const errors = report.pluginReports
      .flatMap((p) => p.violations)
      .filter((v) => v.severity === 'error' || v.severity === 'fatal')
      .flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`));
    expect(errors).toEqual([]);
    expect(synthError).toBeUndefined();
  });
});
