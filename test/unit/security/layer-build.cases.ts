import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import {
  loadLayerSecurity,
  securityClassifier,
  securityDataVersion,
} from '../../../functions/lib/runtime/security.js';
import type { Services } from '../../../functions/lib/runtime/services.js';
import { noMatchClassifier } from '../../../functions/lib/security/classifier.js';
import { parseSecurityManifest } from '../../../functions/lib/security/manifest.js';
import { buildSecurityData } from '../../../layers/build/security-data.js';
import { testServices } from '../../support/services.js';
import { FIXTURE_SNAPSHOTS, ip } from './support/fixtures.js';

let root: string;
/** A function's services on the data directory `root`, with no S3 versions to follow. */
let services: Services;

describe('layer-build', () => {
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'netintel-security-'));
    services = testServices({ NETINTEL_DATA_PATH: root });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('the security part of the data layer', () => {
    test('without a snapshot directory the build writes a valid empty artifact and says why', async () => {
      const entries = await buildSecurityData(join(root, 'security'), { fromDir: join(root, 'absent') });
      expect(entries).toEqual([
        expect.objectContaining({
          name: 'security-lists',
          count: 0,
          source: expect.stringContaining('data:refresh'),
        }),
      ]);
      const manifest = parseSecurityManifest(await readFile(join(root, 'security/manifest.json'), 'utf8'));
      expect(manifest.mode).toBe('none');
      expect(manifest.note).toContain('npm run data:refresh');
      const classifier = await securityClassifier(services);
      expect(classifier.classify(ip('192.0.2.10'))).toEqual(noMatchClassifier.classify(ip('192.0.2.10')));
      expect(securityDataVersion(services)).toBe(manifest.version);
    });

    test('from a snapshot directory the build compiles every list, with one manifest entry per source', async () => {
      const entries = await buildSecurityData(join(root, 'security'), { fromDir: FIXTURE_SNAPSHOTS });
      expect(entries.map((e) => e.name)).toContain('security: ipsum');
      expect(entries.find((e) => e.name === 'security: ipsum')).toMatchObject({
        licence: 'Unlicense',
        count: 2,
      });
      const classifier = await securityClassifier(services);
      expect(classifier.classify(ip('192.0.2.10')).isTor).toBe(true);
      expect(classifier.classify(ip('203.0.113.200')).isSanctionedNetwork).toBe(true);
    });

    test('the same snapshot builds the same artifact (reproducible)', async () => {
      await buildSecurityData(join(root, 'a'), { fromDir: FIXTURE_SNAPSHOTS });
      await buildSecurityData(join(root, 'b'), { fromDir: FIXTURE_SNAPSHOTS });
      expect(await readFile(join(root, 'a/ranges.bin'))).toEqual(await readFile(join(root, 'b/ranges.bin')));
    });

    test('a layer without security data serves no-match', async () => {
      expect(await loadLayerSecurity(root)).toBeNull();
      // No match for anything, while it follows the directory for a refresh to fill it.
      const classifier = await securityClassifier(services);
      expect(classifier.classify(ip('8.8.8.8'))).toEqual(noMatchClassifier.classify(ip('8.8.8.8')));
    });

    test('a table that does not match its manifest is refused', async () => {
      await buildSecurityData(join(root, 'security'), { fromDir: FIXTURE_SNAPSHOTS });
      const table = await readFile(join(root, 'security/ranges.bin'));
      table.writeUInt8(table.readUInt8(table.length - 1) ^ 1, table.length - 1);
      await writeFile(join(root, 'security/ranges.bin'), table);
      await expect(loadLayerSecurity(root)).rejects.toThrow(/does not match/);
    });
  });
});
