import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadLayerSecurity } from '../../../functions/lib/runtime/security.js';
import type { SecurityArtifact } from '../../../functions/lib/security/artifact.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';
import { buildSecurityData } from '../../../layers/build/security-data.js';
import { leftOut } from '../../support/left-out.js';
import { ip, sharedDataDir } from '../../unit/security/support/fixtures.js';

// The layer build on the real snapshots (../shared/data) with the real ASN and DB-IP data from npm:
// known listed addresses come out true, clean public resolvers false. Left out (and passing) on a
// machine without the snapshots.

const shared = sharedDataDir();
const onSnapshots = shared ? describe : describe.skip;
if (!shared) leftOut('the security refresh over the real snapshots: ../shared/data is not on this machine');

let dir: string | undefined;
let artifact: SecurityArtifact;

describe('real-snapshots', () => {
  onSnapshots('security data built from the real snapshots', () => {
    beforeAll(async () => {
      // The tests' global setup has just built the layer, from the snapshots when they are here:
      // check that build rather than compiling the same lists again.
      const built = await loadLayerSecurity(DATA_LAYER_DIR);
      if (built?.manifest.mode === 'snapshot') {
        artifact = built;
        return;
      }
      dir = await mkdtemp(join(tmpdir(), 'netintel-real-'));
      await buildSecurityData(join(dir, 'security'), { fromDir: shared });
      const loaded = await loadLayerSecurity(dir);
      if (loaded === null) throw new Error('no artifact built');
      artifact = loaded;
    }, 300_000);
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const read = (path: string) => readFileSync(join(shared as string, path), 'utf8');
    const classify = (address: string) => artifact.classifier.classify(ip(address));

    test('every required source was read', () => {
      const missing = artifact.manifest.sources.flatMap((s) =>
        s.files.filter((f) => f.status !== 'ok' && !f.optional).map((f) => f.id),
      );
      expect(missing).toEqual([]);
    });

    test('Tor exits from the CSV are isTor, IPv4 and IPv6 (and IPv4-mapped)', () => {
      expect(read('tor-exit-nodes/alireza-rezaee.latest.exits.csv')).toContain('204.8.96.141');
      expect(classify('204.8.96.141').isTor).toBe(true);
      expect(classify('::ffff:204.8.96.141').isTor).toBe(true);
      expect(classify('2620:7:6003::141').isTor).toBe(true);
    });

    test('IPsum addresses on >= 3 blocklists are isThreat', () => {
      expect(read('ipsum/ipsum.txt')).toMatch(/^77\.90\.185\.20\t10$/m);
      expect(classify('77.90.185.20').isThreat).toBe(true);
    });

    test('an AWS range is isDatacenter', () => {
      expect(read('cloud-ip-ranges/provider-published/aws-ip-ranges.json')).toContain('"3.5.140.0/22"');
      expect(classify('3.5.140.1').isDatacenter).toBe(true);
    });

    test('an X4BNet VPN range is isVpn', () => {
      expect(read('x4bnet-vpn-datacenter/vpn/ipv4.txt')).toMatch(/^2\.26\.157\.0\/24$/m);
      expect(classify('2.26.157.5').isVpn).toBe(true);
    });

    test('networks of Iran, North Korea and Syria are isSanctionedNetwork', () => {
      // 2.176.0.0/15: Information Technology Company (AS12880, IR); 175.45.176.0/22: Star JV (AS131279, KP);
      // 5.0.0.0/16: Syrian Telecom (AS29256, SY).
      expect(classify('2.176.0.1').isSanctionedNetwork).toBe(true);
      expect(classify('175.45.176.1').isSanctionedNetwork).toBe(true);
      expect(classify('5.0.0.1').isSanctionedNetwork).toBe(true);
      const countries = new Set(artifact.manifest.sanctionedAsns.map((a) => a.country));
      expect([...countries].every((c) => ['CU', 'IR', 'KP', 'SY'].includes(c))).toBe(true);
    });

    test.each(['9.9.9.9', '1.1.1.1', '8.8.8.8', '2001:4860:4860::8888'])(
      'the public resolver %s is not Tor, VPN, threat or sanctioned',
      (address) => {
        expect(classify(address)).toMatchObject({
          isTor: false,
          isVpn: false,
          isThreat: false,
          isSanctionedNetwork: false,
        });
      },
    );

    test('what the lists say about the resolvers being datacenter addresses', () => {
      // lord-alfred's google list (goog.json) holds 8.8.8.0/24 and 2001:4860::/32; Cloudflare's published
      // ranges and X4BNet's lists hold neither 1.1.1.0/24 nor Quad9's 9.9.9.0/24.
      expect(read('cloud-ip-ranges/lord-alfred-ipranges/google/ipv4_merged.txt')).toMatch(
        /^8\.8\.8\.0\/24$/m,
      );
      expect(classify('8.8.8.8').isDatacenter).toBe(true);
      expect(classify('2001:4860:4860::8888').isDatacenter).toBe(true);
      expect(classify('1.1.1.1').isDatacenter).toBe(false);
      expect(classify('9.9.9.9').isDatacenter).toBe(false);
    });
  });
});
