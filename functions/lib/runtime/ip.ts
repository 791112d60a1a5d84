import { dataRoot } from '../aws/services.js';
import { tracer } from '../aws/tracing.js';
import { reverseLookup } from '../dns/reverse.js';
import { directoryVersions, IpData, ipDataDir, type LoadedData } from '../ip/ip-data.js';
import { createIpLocator, type IpLocator } from '../ip/locator.js';
import { createIpLookup, type IpLookup } from '../ip/lookup.js';
import { logger } from '../observability.js';
import type { VersionSource } from '../refresh/hot-swap.js';
import { reportedVersion } from '../refresh/version.js';
import { type DataRefresh, dataRefresh } from './config.js';
import { tracedReverseLookup } from './dns-tracing.js';
import { securityClassifier, securityDataVersion } from './security.js';
import { asyncPart, part, type Services } from './services.js';

// The instance's IP lookup (every derived group) and locator (place and network only): one copy of
// the data files, opened lazily once and shared by both and by every request; security flags from
// the (hot-swappable) list classifier. The IP data follows the versions the refresh publishes: in
// AWS (DATA_REFRESH_S3) S3's `ip-data/` pointer, otherwise the data directory's own manifest (what
// `npm run data:refresh` rewrites), checked at most every DATA_CHECK_INTERVAL_MS, and a newer version
// is swapped in without a cold start (ip-data.ts).

/** S3's IP versions, its client loaded only when the first check runs (not on the lookup path). */
function s3Versions(s: Services, refresh: DataRefresh): VersionSource<LoadedData> {
  let source: Promise<VersionSource<LoadedData>> | undefined;
  const open = () => {
    source ??= Promise.all([import('../aws/s3-client.js'), import('../aws/s3-data-source.js')]).then(
      ([{ s3Client }, { S3DataStore, IP_DATA_PREFIX, s3IpVersions }]) =>
        s3IpVersions(new S3DataStore(s3Client(s), refresh.bucket, IP_DATA_PREFIX)),
    );
    return source;
  };
  return {
    latestVersion: async () => (await open()).latestVersion(),
    load: async (version) => (await open()).load(version),
  };
}

const ipData = /* @__PURE__ */ part((s): IpData => {
  const dir = ipDataDir(dataRoot(s));
  const refresh = dataRefresh(s.config);
  return new IpData(dir, {
    clock: s.clock,
    follow: {
      source: refresh ? s3Versions(s, refresh) : directoryVersions(dir),
      checkIntervalMs: s.config.DATA_CHECK_INTERVAL_MS,
      onSwap: (from, to) => logger.info('IP data swapped in', { from, to }),
      onError: (error, version) =>
        logger.warn('IP data check failed; keeping the current version', { version, error: error as Error }),
    },
  });
});

export const ipLookup = /* @__PURE__ */ asyncPart(async (s): Promise<IpLookup> => {
  const security = await securityClassifier(s);
  return createIpLookup({ data: ipData(s), security, clock: s.clock });
});

/** For the signup and risk checks: their bundles leave the derived groups' code and data out. */
export const ipLocator = /* @__PURE__ */ asyncPart(async (s): Promise<IpLocator> => {
  const security = await securityClassifier(s);
  return createIpLocator({ data: ipData(s), security });
});

/** The IP data of this instance (GET /v1/data reads its manifest). */
export async function ipDataInService(s: Services): Promise<LoadedData> {
  const d = ipData(s);
  return d.ready ?? d.open();
}

/**
 * `X-Data-Version` of a lookup's answer: the IP data and the security lists that answered, e.g.
 * `ip=20261127T101500Z-3f9c2a7b5d1e, lists=20261127T120000Z-9a0b1c2d3e4f` (GET /v1/data lists them).
 */
export function dataVersionHeader(s: Services): Record<string, string> {
  const ip = reportedVersion(ipData(s).version) ?? 'none';
  return { 'X-Data-Version': `ip=${ip}, lists=${reportedVersion(securityDataVersion(s)) ?? 'none'}` };
}

/**
 * PTR name for ?include=hostname; REVERSE_DNS_TIMEOUT_MS (default 1000) bounds it. A subsegment
 * where tracing is on (dns-tracing.ts).
 */
export function hostnameOf(s: Services, ip: string): Promise<string | null> {
  return reverseHostnames(s)(ip);
}

const reverseHostnames = /* @__PURE__ */ part(({ config }) => {
  const { DNS_SERVERS, REVERSE_DNS_TIMEOUT_MS } = config;
  const lookUp = (ip: string) => reverseLookup(ip, DNS_SERVERS, REVERSE_DNS_TIMEOUT_MS);
  return tracer ? tracedReverseLookup(lookUp, tracer) : lookUp;
});
