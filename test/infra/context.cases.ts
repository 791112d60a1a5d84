import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import {
  CONTEXT_KEYS,
  checkContextKeys,
  checkDnsServers,
  checkEmailAddress,
  customDomainOf,
  parseFlag,
  parseText,
} from '../../infra/context.js';
import { StackConfigurationError } from '../../infra/netintel-stack.js';
import { OUTPUTS } from '../../infra/outputs.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { type CfnResource, netintelStack, ofType, synthesize, testApp } from './synth.js';

// The CDK context, read strictly (infra/context.ts; docs/deploy.md, "Context settings"): a key the
// app does not read, or a value it cannot take, fails the synth naming it, and before any function
// is built (bundling them takes ~40 s in `cdk synth`). Each of these once did nothing, silently.

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/abc';

describe('flags take true or false, nothing else', () => {
  it('as booleans (cdk.json) or strings (-c), in any case; unset is undefined', () => {
    expect(parseFlag('tracing', true)).toBe(true);
    expect(parseFlag('tracing', false)).toBe(false);
    for (const yes of ['true', 'True', 'TRUE']) expect(parseFlag('tracing', yes)).toBe(true);
    for (const no of ['false', 'False', 'FALSE']) expect(parseFlag('tracing', no)).toBe(false);
    expect(parseFlag('tracing', undefined)).toBeUndefined();
  });

  it('refuses anything else, naming the key, the value and what it takes', () => {
    for (const bad of ['off', 'on', 'yes', 'no', '1', '0', '', ' true', 1, null, ['true']]) {
      const parse = () => parseFlag('customHostnames', bad);
      expect(parse).toThrow(StackConfigurationError);
      expect(parse).toThrow(`customHostnames: ${JSON.stringify(bad)} is not true or false`);
      expect(parse).toThrow('-c customHostnames=true or -c customHostnames=false');
    }
  });

  it('a text setting is a string: empty is unset, a number or a list is refused', () => {
    expect(parseText('notifyFrom', 'a@b.example')).toBe('a@b.example');
    expect(parseText('notifyFrom', '')).toBeUndefined();
    expect(parseText('notifyFrom', undefined)).toBeUndefined();
    expect(() => parseText('dnsServers', ['1.1.1.1'])).toThrow('dnsServers: ["1.1.1.1"] is not a string');
  });
});

describe('context keys', () => {
  it('refuses a key the app does not read, lists the known ones and guesses the one meant', () => {
    const check = (context: Record<string, unknown>) => () => checkContextKeys(context);
    expect(check({ tracng: 'false' })).toThrow(StackConfigurationError);
    expect(check({ tracng: 'false' })).toThrow(/unknown context key tracng \(did you mean tracing\?\)/);
    expect(check({ notifyfrom: 'a@b.example' })).toThrow(/notifyfrom \(did you mean notifyFrom\?\)/);
    expect(check({ cloudfrontLogs: 'true' })).toThrow(/cloudfrontLogs \(did you mean cloudFrontLogs\?\)/);
    expect(check({ verbose: 'true', x: '1' })).toThrow(/unknown context keys verbose, x: netintel reads/);
    for (const key of CONTEXT_KEYS) expect(check({ tracng: '' })).toThrow(key);
  });

  it("docs/deploy.md's table of context settings has every key the stack reads, and no other", () => {
    const deploy = readFileSync(join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');
    const table = deploy
      .split('## Context settings')[1]!
      .split('\n\n')
      .find((part) => part.startsWith('| context'))!;
    const documented = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    expect(documented.sort()).toEqual([...CONTEXT_KEYS].sort());
  });

  it("leaves CDK's own keys alone: cdk.json's, feature flags, the toolkit's, cached lookups, the CLI's", () => {
    const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(Object.keys(cdkJson.context).length).toBeGreaterThan(0);
    checkContextKeys(cdkJson.context);
    checkContextKeys({
      '@aws-cdk/core:newStyleStackSynthesis': true,
      'aws:cdk:bundling-stacks': [],
      'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
      'acknowledged-issue-numbers': [12345],
      'cli-telemetry': false,
      ...Object.fromEntries(CONTEXT_KEYS.map((key) => [key, ''])),
    });
  });
});

describe('values', () => {
  it('dnsServers: IP addresses with optional ports, separated by commas or spaces', () => {
    for (const good of [
      '1.1.1.1',
      '1.1.1.1,8.8.8.8',
      '1.1.1.1, 8.8.8.8 9.9.9.9',
      '10.0.0.2:5353',
      '2606:4700:4700::1111',
      '[2606:4700:4700::1111]',
      '[2606:4700:4700::1111]:53',
    ]) {
      expect(checkDnsServers(good)).toBe(good);
    }
    for (const [bad, named] of [
      ['not-an-ip', '"not-an-ip"'],
      ['1.1.1.1,dns.google', '"dns.google"'],
      ['1.1.1.1:0', '"1.1.1.1:0"'],
      ['1.1.1.1:65536', '"1.1.1.1:65536"'],
      ['1.1.1.1:', '"1.1.1.1:"'],
      ['[1.1.1.1]:53', '"[1.1.1.1]:53"'],
      ['[2606:4700::1111]:x', '"[2606:4700::1111]:x"'],
      ['256.1.1.1', '"256.1.1.1"'],
      [',', '"," has no address'],
      ['dns.google 1.1.1.1:x', '"dns.google", "1.1.1.1:x" are not IP addresses'],
    ]) {
      const check = () => checkDnsServers(bad!);
      expect(check).toThrow(StackConfigurationError);
      expect(check).toThrow(`dnsServers: ${named}`);
      expect(check).toThrow('[2606:4700::1111]:53');
    }
  });

  it('an e-mail address, else the key, the value and the hint', () => {
    expect(checkEmailAddress('alarmEmail', 'ops@shop.example', 'hint')).toBe('ops@shop.example');
    expect(() => checkEmailAddress('alarmEmail', 'ops-at-shop', 'Give one.')).toThrow(
      'alarmEmail "ops-at-shop" is not an e-mail address. Give one.',
    );
    // Two addresses, or a display name, pass SES and SNS only as far as the deploy.
    for (const bad of ['ops@example.com,dev', 'ops@example.com;dev@example.com', 'Ops <ops@example.com>'])
      expect(() => checkEmailAddress('alarmEmail', bad, 'Give one.')).toThrow(StackConfigurationError);
  });

  it('a custom domain takes domainName and certificateArn together, or neither', () => {
    expect(customDomainOf()).toBeUndefined();
    expect(customDomainOf('api.example.com', CERTIFICATE)).toEqual({
      domainName: 'api.example.com',
      certificateArn: CERTIFICATE,
    });
    expect(() => customDomainOf('api.example.com')).toThrow(/domainName is set without certificateArn/);
    expect(() => customDomainOf(undefined, CERTIFICATE)).toThrow(/certificateArn is set without domainName/);
  });

  it('the domain is a DNS name and the certificate an ACM one in us-east-1, checked before any bundling', () => {
    expect(customDomainOf('*.api.example.com', CERTIFICATE)?.domainName).toBe('*.api.example.com');
    for (const bad of ['https://api.example.com/x', 'api', 'api_1.example.com', 'a..example.com']) {
      const check = () => customDomainOf(bad, CERTIFICATE);
      expect(check).toThrow(StackConfigurationError);
      expect(check).toThrow(`domainName "${bad}" is not a DNS name`);
    }
    for (const bad of [
      'foo',
      'arn:aws:acm:eu-west-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
      'arn:aws:iam::123456789012:server-certificate/x',
    ]) {
      const check = () => customDomainOf('api.example.com', bad);
      expect(check).toThrow(StackConfigurationError);
      expect(check).toThrow(`certificateArn "${bad}" is not an ACM certificate in us-east-1`);
    }
  });
});

describe('the stack refuses a mistyped context before it builds a function', () => {
  const cases: [Record<string, string>, string | RegExp][] = [
    [{ tracing: 'off' }, 'tracing: "off" is not true or false'],
    [{ customHostnames: 'yes' }, 'customHostnames: "yes" is not true or false'],
    [{ apiGatewayCloudWatchRole: 'on' }, 'apiGatewayCloudWatchRole: "on" is not true or false'],
    [{ cloudFrontLogs: '1' }, 'cloudFrontLogs: "1" is not true or false'],
    [{ cloudfrontLogs: 'true' }, /unknown context key cloudfrontLogs \(did you mean cloudFrontLogs\?\)/],
    [{ tracng: 'false' }, /unknown context key tracng/],
    [{ notifyfrom: 'usage@shop.example' }, /unknown context key notifyfrom/],
    [{ reservedConcurrency: 'yes' }, 'it takes true, false or name=n'],
    [{ dnsServers: 'not-an-ip' }, 'dnsServers: "not-an-ip" is not an IP address'],
    [{ alarmEmail: 'ops-at-shop' }, 'alarmEmail "ops-at-shop" is not an e-mail address'],
    [{ notifyFrom: 'usage-at-shop' }, 'notifyFrom "usage-at-shop" is not an e-mail address'],
    [{ domainName: 'api.shop.example' }, 'domainName is set without certificateArn'],
    [{ certificateArn: CERTIFICATE }, 'certificateArn is set without domainName'],
    [{ domainName: 'api.shop.example', customHostnames: 'true' }, 'domainName is set without certificateArn'],
  ];
  it.each(cases)('%j', (context, message) => {
    const app = testApp(undefined, context);
    let error: unknown;
    try {
      netintelStack(app, context.notifyFrom ? {} : { notifyFrom: 'notices@example.com' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(StackConfigurationError);
    expect(() => {
      throw error;
    }).toThrow(message);
    // Nothing was built, so nothing was bundled.
    expect(app.node.findAll().filter((c) => c instanceof LambdaFunction)).toEqual([]);
  });

  it('refuses the same in stack props: a domain without its certificate, an alarm address that is none', () => {
    expect(() => netintelStack(testApp(), { domainName: 'api.shop.example', customHostnames: true })).toThrow(
      'domainName is set without certificateArn',
    );
    expect(() => netintelStack(testApp(), { notifyFrom: 'a@b.example', alarmEmail: 'ops' })).toThrow(
      'alarmEmail "ops" is not an e-mail address',
    );
  });
});

describe('the stack takes what it accepts', () => {
  it('-c flags in any case, dnsServers with ports, a custom domain that is then BASE_DOMAIN', () => {
    const s = synthesize(
      netintelStack(
        testApp(undefined, {
          customHostnames: 'True',
          apiGatewayCloudWatchRole: 'TRUE',
          cloudFrontLogs: 'true',
          tracing: 'False',
          dnsServers: '1.1.1.1, [2606:4700:4700::1111]:53',
          domainName: 'api.shop.example',
          certificateArn: CERTIFICATE,
        }),
      ),
    );
    expect(ofType(s.resources, 'AWS::CloudFront::ConnectionGroup')).toHaveLength(1);
    expect(ofType(s.resources, 'AWS::ApiGateway::Account')).toHaveLength(1);
    expect(ofType(s.resources, 'AWS::XRay::SamplingRule')).toEqual([]);
    const functions = ofType(s.resources, 'AWS::Lambda::Function').map(([, f]) => props(f));
    const ours = functions.filter(
      (f) => f.Description !== undefined && f.Environment?.Variables?.NOTIFY_FROM,
    );
    expect(ours.length).toBeGreaterThan(10);
    for (const f of ours) {
      expect(f.TracingConfig?.Mode ?? 'PassThrough').toBe('PassThrough');
      expect(f.Environment.Variables.DNS_SERVERS).toBe('1.1.1.1, [2606:4700:4700::1111]:53');
    }
    const served = ofType(s.resources, 'AWS::CloudFront::Distribution')
      .map(([, d]) => props(d).DistributionConfig)
      .find((config) => config.Aliases)!;
    expect(served.Aliases).toEqual(['api.shop.example']);
    expect(served.Logging).toBeDefined();
    const authorizer = functions.find((f) => f.Description === 'authorizer')!;
    expect(authorizer.Environment.Variables.BASE_DOMAIN).toBe('api.shop.example');
    expect(s.outputs[OUTPUTS.baseDomain]).toMatchObject({ Value: 'api.shop.example' });
  });
});
