import { describe, expect, test } from '@jest/globals';
import { edgeLocationTrust, viewerAddress } from '../../../functions/lib/gateway/edge-origin.js';
import { routeByName } from '../../../functions/routes.js';

// GET /v1/geo believes CloudFront-Viewer-* headers only from the one CloudFront behaviour that
// writes them: the exact /v1/geo path pattern, with the distribution's secret origin header.

const SECRET = 'origin-secret-0123456789';
const GEO = routeByName('geo').path;
const forged = { 'cloudfront-viewer-country': 'FR', 'cloudfront-viewer-city': 'Paris' };

describe('edge-origin', () => {
  describe('which requests may give GET /v1/geo its location in CloudFront-Viewer-* headers', () => {
    test('through our CloudFront on exactly /v1/geo the headers are CloudFront’s own', () => {
      expect(
        edgeLocationTrust({ path: GEO, headers: { 'x-origin-verify': SECRET, ...forged } }, GEO, SECRET),
      ).toBe('trusted');
    });

    test('through our CloudFront on any other spelling the headers came from the viewer: refused', () => {
      for (const path of [
        '/v1/geo/',
        '//v1/geo',
        '/v1//geo',
        '/V1/geo',
        '/v1/GEO',
        '/v1/%67eo',
        '/v1/geo/.',
      ]) {
        expect(
          edgeLocationTrust({ path, headers: { 'x-origin-verify': SECRET, ...forged } }, GEO, SECRET),
        ).toBe('other_spelling');
      }
    });

    test('without the origin secret (API Gateway called directly, or locally) they are ignored, on any path', () => {
      for (const headers of [forged, { ...forged, 'x-origin-verify': 'wrong' }]) {
        for (const path of [GEO, '/v1/geo/']) {
          expect(edgeLocationTrust({ path, headers }, GEO, SECRET)).toBe('untrusted');
        }
      }
      expect(edgeLocationTrust({ path: GEO, headers: { 'x-origin-verify': SECRET } }, GEO, undefined)).toBe(
        'untrusted',
      );
    });
  });

  describe('the visitor address X-Viewer-Address names (the sign-in limits)', () => {
    test('through our CloudFront it is the visitor, in canonical text', () => {
      const from = (v: string) =>
        viewerAddress({ headers: { 'x-origin-verify': SECRET, 'x-viewer-address': v } }, SECRET);
      expect(from('203.0.113.9')).toBe('203.0.113.9');
      expect(from(' 2001:DB8:0:0::1 ')).toBe('2001:db8::1');
    });

    test('without the origin secret, or with no address in it, there is none', () => {
      for (const headers of [
        { 'x-viewer-address': '203.0.113.9' },
        { 'x-viewer-address': '203.0.113.9', 'x-origin-verify': 'wrong' },
        { 'x-origin-verify': SECRET },
        { 'x-origin-verify': SECRET, 'x-viewer-address': 'not an address' },
      ]) {
        expect(viewerAddress({ headers }, SECRET)).toBeNull();
      }
      expect(
        viewerAddress(
          { headers: { 'x-origin-verify': SECRET, 'x-viewer-address': '203.0.113.9' } },
          undefined,
        ),
      ).toBeNull();
    });
  });
});
