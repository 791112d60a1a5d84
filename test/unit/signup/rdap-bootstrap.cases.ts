import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { parseRdapBootstrap, RDAP_BOOTSTRAP_PATH } from '../../../functions/lib/signup/domain-age.js';
import { buildRdapBootstrap } from '../../../layers/build/rdap-bootstrap.js';

describe('rdap-bootstrap', () => {
  describe('the RDAP bootstrap in the data layer', () => {
    test('the build writes rdap/dns.json from the curated IANA snapshot and records it in the manifest', async () => {
      const outDir = await mkdtemp(join(tmpdir(), 'netintel-rdap-'));
      try {
        const entries = await buildRdapBootstrap(outDir);
        expect(entries).toEqual([
          {
            name: 'iana-rdap-dns-bootstrap',
            version: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            licence: expect.any(String),
            source: 'https://data.iana.org/rdap/dns.json',
            count: expect.any(Number),
          },
        ]);
        const written = parseRdapBootstrap(
          JSON.parse(await readFile(join(outDir, RDAP_BOOTSTRAP_PATH), 'utf8')),
        );
        expect(written.size).toBe(entries[0]!.count);
        expect(written.size).toBeGreaterThanOrEqual(40);
        expect(written.baseUrlFor('shop.com')).toBe('https://rdap.verisign.com/com/v1/');
      } finally {
        await rm(outDir, { recursive: true, force: true });
      }
    });

    test('a snapshot that is not a bootstrap file fails the build', async () => {
      const outDir = await mkdtemp(join(tmpdir(), 'netintel-rdap-'));
      try {
        const bad = join(outDir, 'bad.json');
        await writeFile(bad, '{"services": "none"}');
        await expect(buildRdapBootstrap(outDir, bad)).rejects.toThrow();
      } finally {
        await rm(outDir, { recursive: true, force: true });
      }
    });
  });
});
