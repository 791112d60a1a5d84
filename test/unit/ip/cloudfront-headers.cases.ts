import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  parseCloudFrontViewerHeaders,
  repairHeaderText,
} from '../../../functions/lib/ip/cloudfront-headers.js';

const NONE = {
  ip: null,
  country: null,
  regionCode: null,
  regionName: null,
  city: null,
  postalCode: null,
  latitude: null,
  longitude: null,
  timezone: null,
  asn: null,
};

describe('cloudfront-headers', () => {
  describe('CloudFront viewer headers', () => {
    test('every viewer geolocation header is read', () => {
      expect(
        parseCloudFrontViewerHeaders({
          'CloudFront-Viewer-Address': '198.51.100.10:46532',
          'CloudFront-Viewer-ASN': '16509',
          'CloudFront-Viewer-Country': 'US',
          'CloudFront-Viewer-Country-Name': 'United States',
          'CloudFront-Viewer-Country-Region': 'WA',
          'CloudFront-Viewer-Country-Region-Name': 'Washington',
          'CloudFront-Viewer-City': 'Seattle',
          'CloudFront-Viewer-Postal-Code': '98101',
          'CloudFront-Viewer-Latitude': '47.60620',
          'CloudFront-Viewer-Longitude': '-122.33210',
          'CloudFront-Viewer-Time-Zone': 'America/Los_Angeles',
          'CloudFront-Viewer-Metro-Code': '819',
        }),
      ).toEqual({
        ip: '198.51.100.10',
        country: 'US',
        regionCode: 'US-WA',
        regionName: 'Washington',
        city: 'Seattle',
        postalCode: '98101',
        latitude: 47.6062,
        longitude: -122.3321,
        timezone: 'America/Los_Angeles',
        asn: 16509,
      });
    });

    test('header names are matched whatever their case (Node lowercases them)', () => {
      const parsed = parseCloudFrontViewerHeaders({
        'cloudfront-viewer-country': 'de',
        'CLOUDFRONT-VIEWER-CITY': 'Berlin',
      });
      expect(parsed).toMatchObject({ country: 'DE', city: 'Berlin' });
    });

    test('no headers give an all-null location', () => {
      expect(parseCloudFrontViewerHeaders({ host: 'api.example.com' })).toEqual(NONE);
    });

    test.each([
      ['2001:db8::1:46532', '2001:db8::1'],
      ['[2001:db8::1]:443', '2001:db8::1'],
      ['203.0.113.7:1', '203.0.113.7'],
    ])('the viewer address %s is read without its port', (value, expected) => {
      expect(parseCloudFrontViewerHeaders({ 'cloudfront-viewer-address': value }).ip).toBe(expected);
    });

    test('percent-encoded and Latin-1-misread UTF-8 city names are repaired', () => {
      expect(parseCloudFrontViewerHeaders({ 'cloudfront-viewer-city': 'M%C3%BCnchen' }).city).toBe('München');
      expect(parseCloudFrontViewerHeaders({ 'cloudfront-viewer-city': 'MÃ¼nchen' }).city).toBe('München');
      expect(parseCloudFrontViewerHeaders({ 'cloudfront-viewer-city': 'São Paulo' }).city).toBe('São Paulo');
      expect(repairHeaderText('100%')).toBe('100%');
    });

    test.each([
      ['cloudfront-viewer-country', 'USA', 'country'],
      ['cloudfront-viewer-country', 'XX', 'country'],
      ['cloudfront-viewer-latitude', '91.5', 'latitude'],
      ['cloudfront-viewer-longitude', 'east', 'longitude'],
      ['cloudfront-viewer-time-zone', 'Mars/Olympus_Mons', 'timezone'],
      ['cloudfront-viewer-asn', 'AS15169', 'asn'],
      ['cloudfront-viewer-asn', '0', 'asn'],
      ['cloudfront-viewer-city', 'Evil\r\nInjected: yes', 'city'],
      ['cloudfront-viewer-city', 'x'.repeat(500), 'city'],
    ])('a malformed %s (%s) is dropped', (name, value, field) => {
      const parsed = parseCloudFrontViewerHeaders({ 'cloudfront-viewer-country': 'US', [name]: value });
      expect(parsed[field as keyof typeof parsed]).toBeNull();
    });

    test('a region code without a country is dropped', () => {
      expect(
        parseCloudFrontViewerHeaders({ 'cloudfront-viewer-country-region': 'CA' }).regionCode,
      ).toBeNull();
    });

    test('any header values parse without throwing', () => {
      const names = [
        'address',
        'asn',
        'country',
        'country-region',
        'country-region-name',
        'city',
        'postal-code',
        'latitude',
        'longitude',
        'time-zone',
      ].map((n) => `cloudfront-viewer-${n}`);
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...names), fc.string({ unit: 'binary' })), (headers) => {
          const parsed = parseCloudFrontViewerHeaders(headers);
          expect(Object.keys(parsed).sort()).toEqual(Object.keys(NONE).sort());
        }),
        { numRuns: 1000 },
      );
    });
  });
});
