import { defineHandler } from '../lib/http/define-handler.js';
import { ValidationError } from '../lib/http/errors.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { includeHostname } from '../lib/ip/query.js';
import { hostnameOf, ipLookup } from '../lib/runtime/ip.js';

// GET /v1/lookup/{ip}: one IP, billed as one lookup; private, reserved and unknown addresses are
// found:false, never an error.
export const handler = defineHandler({
  route: 'lookup-ip',
  input: (req) => {
    const ip = parseIp(req.pathParameters.ip ?? '');
    if (!ip) throw new ValidationError('invalid_ip', 'The path must hold one IPv4 or IPv6 address.');
    const userAgent = req.query.userAgent ?? null;
    if (userAgent !== null && userAgent.length > USER_AGENT_MAX) {
      throw new ValidationError('invalid_query', `userAgent is longer than ${USER_AGENT_MAX} characters.`);
    }
    return { ip, userAgent, hostname: includeHostname(req.query) };
  },
  run: async ({ ip, userAgent, hostname }, { principal }) => {
    const [result, ptr] = await Promise.all([
      (await ipLookup()).lookup(ip, { includeSecurity: principal.includesSecurity, userAgent }),
      hostname ? hostnameOf(ip.canonical) : Promise.resolve(undefined),
    ]);
    // The spec types hostname as string; when the PTR lookup fails it is null.
    return { json: hostname ? { ...result, hostname: ptr } : result };
  },
});
