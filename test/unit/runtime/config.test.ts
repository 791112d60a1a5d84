import { afterEach, describe, expect, test } from '@jest/globals';
import { BUCKET, JOB_QUEUE, TABLES, tableName } from '../../../functions/lib/aws/resources.js';
import {
  ConfigError,
  dataRefresh,
  environmentConfig,
  parseConfig,
} from '../../../functions/lib/runtime/config.js';

// The functions' configuration (functions/lib/runtime/config.ts): every variable typed, with the
// defaults docs/configuration.md gives, read once per container.

/** The error parseConfig throws for `env`, or a failure when it throws none. */
function refusal(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`no error for ${JSON.stringify(env)}`);
}

describe('defaults and coercion', () => {
  test('an empty environment gives every default', () => {
    expect(parseConfig({})).toMatchObject({
      NETINTEL_DATA_PATH: '/opt/data',
      DATA_REFRESH_S3: false,
      DATA_CHECK_INTERVAL_MS: 300_000,
      MX_DOMAINS_PER_RUN: 1000,
      DNS_SERVERS: [],
      DNS_CONCURRENCY: 100,
      DNS_CANARY: ['gmail.com', 'outlook.com', 'yahoo.com'],
      REVERSE_DNS_TIMEOUT_MS: 1000,
      KEY_CACHE_SECONDS: 5,
      USAGE_PLAN_KEYS: {},
      JOB_CHUNK_ROWS: 1000,
      JOB_SWEEP_GRACE_SECONDS: 35,
      QUOTA_LEASE_MIN_PER_MINUTE: 30_000,
      BASE_DOMAIN: 'localhost',
    });
    const unset = parseConfig({});
    for (const name of [
      'DNS_BUDGET_MS',
      'RDAP_TIMEOUT_MS',
      'RDAP_BOOTSTRAP_URL',
      'ORIGIN_SECRET',
      'USER_ID_HMAC_SECRET',
      'NOTIFY_OUTBOX',
      'NOTIFY_FROM',
      'DATA_BUCKET',
      'CUSTOM_HOSTNAME_TARGET',
      'CUSTOM_HOSTNAME_DISTRIBUTION_ID',
      // Unset: each kind of AWS call keeps its own bounds (aws/call-bounds.ts).
      'AWS_CONNECT_TIMEOUT_MS',
      'AWS_REQUEST_TIMEOUT_MS',
    ] as const) {
      expect(unset[name]).toBeUndefined();
    }
  });

  test('numbers, lists, switches and JSON are read into their types', () => {
    const read = parseConfig({
      KEY_CACHE_SECONDS: '0.5',
      JOB_CHUNK_ROWS: '3',
      DNS_BUDGET_MS: '400',
      DNS_SERVERS: ' 127.0.0.1:5353, [::1]:53  8.8.8.8 ',
      DNS_CANARY: 'Mail.Example, other.example',
      DATA_REFRESH_S3: 'true',
      USAGE_PLAN_KEYS: '{"free":"key-free","pro":"key-pro"}',
      AWS_CONNECT_TIMEOUT_MS: '250',
      AWS_REQUEST_TIMEOUT_MS: '500',
    });
    expect(read).toMatchObject({
      KEY_CACHE_SECONDS: 0.5,
      JOB_CHUNK_ROWS: 3,
      DNS_BUDGET_MS: 400,
      DNS_SERVERS: ['127.0.0.1:5353', '[::1]:53', '8.8.8.8'],
      DNS_CANARY: ['mail.example', 'other.example'],
      DATA_REFRESH_S3: true,
      USAGE_PLAN_KEYS: { free: 'key-free', pro: 'key-pro' },
      AWS_CONNECT_TIMEOUT_MS: 250,
      AWS_REQUEST_TIMEOUT_MS: 500,
    });
    expect(parseConfig({ DNS_CANARY: 'off' }).DNS_CANARY).toEqual([]);
    expect(parseConfig({ DATA_REFRESH_S3: 'false' }).DATA_REFRESH_S3).toBe(false);
  });

  test('an empty variable counts as unset', () => {
    const read = parseConfig({ KEY_CACHE_SECONDS: '', BASE_DOMAIN: '', DATA_BUCKET: '' });
    expect(read).toMatchObject({ KEY_CACHE_SECONDS: 5, BASE_DOMAIN: 'localhost' });
    expect(read.DATA_BUCKET).toBeUndefined();
  });

  test('the table, bucket and queue variables are the ones resources.ts names', () => {
    for (const table of TABLES) {
      expect(tableName(table.id, parseConfig({ [table.envVar]: `deployed-${table.id}` }))).toBe(
        `deployed-${table.id}`,
      );
      expect(tableName(table.id, parseConfig({}))).toBe(table.localName);
    }
    const read = parseConfig({ [BUCKET.envVar]: 'jobs-bucket', [JOB_QUEUE.envVar]: 'https://queue' });
    expect(read[BUCKET.envVar]).toBe('jobs-bucket');
    expect(read[JOB_QUEUE.envVar]).toBe('https://queue');
  });

  test('variables the functions do not read are left out', () => {
    expect(parseConfig({ PATH: '/usr/bin', HOME: '/root' })).not.toHaveProperty('PATH');
  });
});

describe('invalid values', () => {
  test.each([
    ['KEY_CACHE_SECONDS', 'soon'],
    ['KEY_CACHE_SECONDS', '-1'],
    ['JOB_CHUNK_ROWS', '0'],
    ['JOB_CHUNK_ROWS', '2.5'],
    ['DNS_CONCURRENCY', 'many'],
    ['RDAP_TIMEOUT_MS', '0'],
    ['AWS_REQUEST_TIMEOUT_MS', '0'],
    ['AWS_CONNECT_TIMEOUT_MS', 'soon'],
    ['DATA_REFRESH_S3', 'yes'],
    ['DATA_REFRESH_S3', 'TRUE'],
    ['USAGE_PLAN_KEYS', '{"free":'],
    ['USAGE_PLAN_KEYS', '["key"]'],
  ])('%s=%s is refused with an error naming the variable', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error.variables).toEqual([name]);
    expect(error.message).toContain(name);
  });

  test('every invalid variable is named at once, and no value is echoed (some are secrets)', () => {
    const error = refusal({ JOB_CHUNK_ROWS: 'lots', USAGE_PLAN_KEYS: 'secret-key-value' });
    expect([...error.variables].sort()).toEqual(['JOB_CHUNK_ROWS', 'USAGE_PLAN_KEYS']);
    expect(error.message).not.toContain('secret-key-value');
    expect(error.message).not.toContain('lots');
  });

  test('a DNS_SERVERS entry that is not an IP address with an optional port is refused by its position', () => {
    for (const bad of ['not-an-ip', '1.1.1.1,localhost:53', '1.1.1.1:0', '8.8.8.8:70000', '[1.1.1.1]:53']) {
      const error = refusal({ DNS_SERVERS: bad });
      expect([...error.variables]).toEqual(['DNS_SERVERS']);
    }
    expect(refusal({ DNS_SERVERS: '1.1.1.1, localhost:53' }).message).toMatch(
      /entry 2 of 2 is not an IP address/,
    );
    expect(refusal({ DNS_SERVERS: '1.1.1.1:0' }).message).toMatch(/entry 1 of 1 has no valid port/);
    // Each form node:dns takes.
    expect(
      parseConfig({ DNS_SERVERS: '1.1.1.1,1.1.1.1:53,::1,[2001:db8::1]:53,[::1]' }).DNS_SERVERS,
    ).toHaveLength(5);
  });
});

describe('read from the environment', () => {
  const saved = process.env.KEY_CACHE_SECONDS;
  afterEach(() => {
    if (saved === undefined) delete process.env.KEY_CACHE_SECONDS;
    else process.env.KEY_CACHE_SECONDS = saved;
  });

  // A container reads it once, when it builds its services (runtime/container.ts); a local stack
  // reads it when it builds its own: each reading is of the environment as it is then.
  test('environmentConfig() parses process.env as it is at the call', () => {
    process.env.KEY_CACHE_SECONDS = '7';
    const first = environmentConfig();
    process.env.KEY_CACHE_SECONDS = '8';
    expect(first.KEY_CACHE_SECONDS).toBe(7);
    expect(environmentConfig().KEY_CACHE_SECONDS).toBe(8);
  });

  test('an invalid environment fails with a ConfigError naming the variable, never a half-read configuration', () => {
    process.env.KEY_CACHE_SECONDS = 'soon';
    expect(() => environmentConfig()).toThrow(ConfigError);
    expect(() => environmentConfig()).toThrow(/KEY_CACHE_SECONDS/);
  });
});

describe('data refresh', () => {
  test('refreshed versions are followed only with DATA_REFRESH_S3=true, from DATA_BUCKET else the jobs bucket', () => {
    expect(dataRefresh(parseConfig({ DATA_BUCKET: 'data' }))).toBeNull();
    expect(dataRefresh(parseConfig({ DATA_REFRESH_S3: 'true' }))).toBeNull();
    expect(dataRefresh(parseConfig({ DATA_REFRESH_S3: 'true', [BUCKET.envVar]: 'jobs' }))).toEqual({
      bucket: 'jobs',
      checkIntervalMs: 300_000,
    });
    expect(
      dataRefresh(
        parseConfig({
          DATA_REFRESH_S3: 'true',
          DATA_BUCKET: 'data',
          [BUCKET.envVar]: 'jobs',
          DATA_CHECK_INTERVAL_MS: '0',
        }),
      ),
    ).toEqual({ bucket: 'data', checkIntervalMs: 0 });
  });
});
