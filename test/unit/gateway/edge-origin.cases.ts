import { describe, expect, test } from '@jest/globals';
import { edgeLocationTrust } from '../../../functions/lib/gateway/edge-origin.js';
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
});
