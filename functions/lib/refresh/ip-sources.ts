import { type DatabaseSource, ipinfoSource, maxmindSource } from './mmdb-download.js';

// Which databases the refresh downloads, from the deployer's settings (
// docs/data-sources.md): MaxMind with an account id and licence key, IPinfo Lite with a token. A
// database given as a local file (GEO_CITY_MMDB, GEO_ASN_MMDB) is the layer build's and is not
// downloaded. Pure: the settings come from the validated configuration (runtime/config.ts).

export interface IpSourceSettings {
  GEO_CITY_MMDB?: string;
  GEO_ASN_MMDB?: string;
  GEO_CITY_SOURCE?: 'dbip' | 'maxmind' | 'ipinfo';
  GEO_ASN_SOURCE?: 'default' | 'maxmind' | 'ipinfo';
  MAXMIND_ACCOUNT_ID?: string;
  MAXMIND_LICENSE_KEY?: string;
  MAXMIND_CITY_EDITION: string;
  MAXMIND_ASN_EDITION: string;
  IPINFO_TOKEN?: string;
  DATA_UPSTREAM_MIRROR?: string;
}

export class IpSourceSettingsError extends Error {
  override readonly name = 'IpSourceSettingsError';
}

export interface IpDatabaseSources {
  location: DatabaseSource | null;
  network: DatabaseSource | null;
}

/** `https://host` as fetched: from the mirror when one is set (`<mirror>/host`). */
function base(url: string, mirror: string | undefined): string {
  return mirror ? `${mirror.replace(/\/+$/, '')}/${new URL(url).host}` : url;
}

/**
 * The two databases chosen: each source as set, else MaxMind where its credentials are given, else
 * the free ones (DB-IP Lite for locations; for networks IPinfo Lite where its token is given, else
 * ip-location-db). The stack checks its settings with the same rule (infra/ip-data-sources.ts).
 */
export function chosenIpSources(
  set: Pick<IpSourceSettings, 'GEO_CITY_SOURCE' | 'GEO_ASN_SOURCE'>,
  credentials: { maxmind: boolean; ipinfo: boolean },
): { city: 'dbip' | 'maxmind' | 'ipinfo'; asn: 'default' | 'maxmind' | 'ipinfo' } {
  return {
    city: set.GEO_CITY_SOURCE ?? (credentials.maxmind ? 'maxmind' : 'dbip'),
    asn: set.GEO_ASN_SOURCE ?? (credentials.maxmind ? 'maxmind' : credentials.ipinfo ? 'ipinfo' : 'default'),
  };
}

export function ipDatabaseSources(settings: IpSourceSettings): IpDatabaseSources {
  const hasMaxmind = Boolean(settings.MAXMIND_ACCOUNT_ID && settings.MAXMIND_LICENSE_KEY);
  const hasIpinfo = Boolean(settings.IPINFO_TOKEN);
  const { city, asn } = chosenIpSources(settings, { maxmind: hasMaxmind, ipinfo: hasIpinfo });
  const mirror = settings.DATA_UPSTREAM_MIRROR;
  const needs = (choice: string, ok: boolean, what: string) => {
    if (!ok) throw new IpSourceSettingsError(`${choice} needs ${what}`);
  };
  if (city === 'maxmind' || asn === 'maxmind')
    needs('the MaxMind source', hasMaxmind, 'MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY');
  if (city === 'ipinfo' || asn === 'ipinfo') needs('the IPinfo source', hasIpinfo, 'IPINFO_TOKEN');
  // One IPinfo source for both roles: the refresh downloads its single file once.
  const ipinfo = hasIpinfo
    ? ipinfoSource({ token: settings.IPINFO_TOKEN as string, baseUrl: base('https://ipinfo.io', mirror) })
    : null;
  const maxmind = (edition: string) =>
    maxmindSource({
      edition,
      accountId: settings.MAXMIND_ACCOUNT_ID as string,
      licenseKey: settings.MAXMIND_LICENSE_KEY as string,
      baseUrl: base('https://download.maxmind.com', mirror),
    });
  return {
    location: settings.GEO_CITY_MMDB
      ? null
      : city === 'maxmind'
        ? maxmind(settings.MAXMIND_CITY_EDITION)
        : city === 'ipinfo'
          ? ipinfo
          : null,
    network: settings.GEO_ASN_MMDB
      ? null
      : asn === 'maxmind'
        ? maxmind(settings.MAXMIND_ASN_EDITION)
        : asn === 'ipinfo'
          ? ipinfo
          : null,
  };
}
