import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ensureDataLayer } from '../../layers/build/data-layer.js';
import { NetintelStack, StackConfigurationError } from '../netintel-stack.js';
import { PROJECT_ROOT } from '../project-root.js';

// `cdk synth|deploy` entry (cdk.json). Context, read by the stack (infra/netintel-stack.ts), which
// refuses a key it does not read and a value it cannot take (infra/context.ts):
//   -c notifyFrom=usage@example.com    required: verified SES identity usage notices are sent from
//   -c alarmEmail=ops@example.com      where the alarm topic sends e-mail (recommended)
//   -c apiGatewayCloudWatchRole=true   set the account's regional API Gateway logging role (only
//                                      where the account has none yet; it is shared by every API)
//   -c dnsServers=1.1.1.1,8.8.8.8      resolvers for email checks (DNS_SERVERS): IPs, optional :port
//   -c domainName=api.example.com -c certificateArn=arn:aws:acm:us-east-1:...   custom domain, TLS 1.2+
//                                      (both or neither)
//   -c customHostnames=true            custom hostnames (docs/custom-hostnames.md)
//   -c cloudFrontLogs=true             CloudFront standard logs (not every opt-in region delivers them)
//   -c reservedConcurrency=true        reserve concurrency for the authorizer, geo and email-validate
//                                      (or authorizer=150,geo=40,...; infra/reserved-concurrency.ts)
//   -c tracing=false                   no X-Ray (infra/constructs/netintel-function.ts)
// Flags take true or false, in any case.
// IP data sources of the data refresh (infra/ip-data-sources.ts; read by the stack itself):
//   -c geoCitySource=dbip|maxmind|ipinfo      location database (default dbip; maxmind with maxmindSecret)
//   -c geoAsnSource=default|maxmind|ipinfo    network database (default: maxmind with maxmindSecret,
//                                             else ipinfo with ipinfoSecret, else ip-location-db)
//   -c maxmindSecret=<secret name or ARN>     Secrets Manager secret {"accountId": "...", "licenseKey": "..."}
//   -c ipinfoSecret=<secret name or ARN>      Secrets Manager secret {"token": "..."}
//   -c maxmindCityEdition=GeoIP2-City -c maxmindAsnEdition=GeoLite2-ASN   MaxMind editions
//   -c geofeeds=https://a.example/geofeed.csv,https://b.example/feed.csv  operator geofeeds (RFC 8805)
//   -c dataUpstreamMirror=https://mirror.example   fetch every upstream from <mirror>/<host>/<path>

const layerDir = join(PROJECT_ROOT, 'layers');

/** `npm run build:data` (into layers/data), its output on stderr: stdout may be the template (`cdk synth`). */
function buildDataLayer(): void {
  const result = spawnSync('npm', ['run', 'build:data'], { cwd: PROJECT_ROOT, stdio: ['ignore', 2, 2] });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`npm run build:data exited with ${result.status ?? `signal ${result.signal}`}`);
  }
}

// The data layer is built from downloaded databases: once before the first synth, and again when
// the one built is of another format than this source builds (layers/build/data-layer.ts).
try {
  await ensureDataLayer({ dataDir: join(layerDir, 'data'), build: buildDataLayer, log: console.error });
} catch (error) {
  console.error(`Cannot synthesize: the data layer is not built (${(error as Error).message}).`);
  process.exit(1);
}

const app = new App();

try {
  new NetintelStack(app, 'Netintel', {
    description: 'netintel: network-intelligence API (IP geolocation, email checks, signup and travel risk)',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    dataLayerDir: layerDir,
  });
} catch (error) {
  // Configuration the deployer must give or fix (NOTIFY_FROM_REQUIRED, a mistyped context key or
  // value, ...): one line, no stack trace.
  if (!(error instanceof StackConfigurationError)) throw error;
  console.error(`Cannot synthesize: ${error.message}`);
  process.exit(1);
}

// cdk-nag 3 is a validation plugin: unacknowledged errors fail the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
