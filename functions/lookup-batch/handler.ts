import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { ValidationError } from '../lib/http/errors.js';
import { type ParsedIp, parseIp } from '../lib/ip/parse-ip.js';
import { ipLookup } from '../lib/runtime/ip.js';
import { LOOKUP_BATCH_MAX } from './contract.js';

// POST /v1/lookup: 1-100 IPs, validated whole before any lookup (400 empty_batch,
// batch_too_large, invalid_ip with the index), results in order, each IP billed (duplicates too).
export const handler = defineHandler({
  route: 'lookup-batch',
  input: (req) => {
    const body = readJsonBody(req);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ValidationError('invalid_field', 'Expected {"ips": string[]}.');
    }
    const ips = (body as { ips?: unknown }).ips;
    if (ips === undefined) throw new ValidationError('missing_field', 'ips is required.');
    if (!Array.isArray(ips)) throw new ValidationError('invalid_field', 'ips must be an array of strings.');
    if (ips.length === 0) throw new ValidationError('empty_batch', 'ips is empty.');
    if (ips.length > LOOKUP_BATCH_MAX) {
      throw new ValidationError(
        'batch_too_large',
        `At most ${LOOKUP_BATCH_MAX} IPs per call; got ${ips.length}.`,
      );
    }
    const parsed: ParsedIp[] = ips.map((value, i) => {
      const ip = typeof value === 'string' ? parseIp(value) : null;
      if (!ip) throw new ValidationError('invalid_ip', `ips[${i}] is not an IPv4 or IPv6 address.`);
      return ip;
    });
    return { ips: parsed };
  },
  run: async ({ ips }, { principal }) => {
    const lookup = await ipLookup();
    const results = await Promise.all(
      ips.map((ip) => lookup.lookup(ip, { includeSecurity: principal.includesSecurity })),
    );
    return { json: { results: results.map(({ userAgent: _u, hostname: _h, ...item }) => item) } };
  },
});
