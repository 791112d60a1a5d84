import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { nagErrors, netintelStack, testApp } from './synth.js';

// cdk-nag 3 runs as a CDK validation plugin: findings land in the cloud assembly's
// validation-report.json, acknowledged ones are removed from it, and errors fail the synth.

const outdir = mkdtempSync(join(tmpdir(), 'netintel-nag-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('cdk-nag AwsSolutions', () => {
  it('finds no unacknowledged error (every acknowledgement sits next to its resource with a reason)', () => {
    const app = testApp(outdir);
    netintelStack(app);
    const { errors, synthError } = nagErrors(app, outdir);
    expect(errors).toEqual([]);
    expect(synthError).toBeUndefined();
  });
});
