import { isIP } from 'node:net';
import { labelProblem, MAX_HOSTNAME_OCTETS } from './hostname-labels.js';

// The Host header a request arrives with (RFC 9112 section 3.2): `uri-host [":" port]`, exactly
// once. API Gateway and CloudFront refuse anything else before our code runs; the local server
// answers 400 invalid_host itself rather than falling back to the base address, so a request it
// serves is one AWS would have served too. Names are held to the same LDH rules as custom hostnames
// (hostname-labels.ts), IP literals to node:net's parser.

export type HostHeaderCheck = { ok: true; hostname: string } | { ok: false; message: string };

const refuse = (message: string): HostHeaderCheck => ({ ok: false, message });

/**
 * Checks every Host value a request carried and returns the hostname (lower case, no port, IPv6
 * literals in brackets). `required`: HTTP/1.1 requests must send one (RFC 9112 section 3.2);
 * HTTP/1.0 requests may not, and then the hostname is empty.
 */
export function checkHostHeader(values: readonly string[], required: boolean): HostHeaderCheck {
  if (values.length > 1) {
    return refuse(`Send exactly one Host header; this request has ${values.length}.`);
  }
  if (values.length === 0) {
    return required ? refuse('An HTTP/1.1 request must send a Host header.') : { ok: true, hostname: '' };
  }
  const raw = values[0]!.trim();
  const show = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}...` : raw);
  const parts = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(raw);
  if (!parts) return refuse(`The Host header ${show} is not a host name with an optional numeric port.`);
  const [, host, port] = parts as unknown as [string, string, string | undefined];
  // RFC 3986 section 3.2.3: the port may be empty; a present one is 0-65535.
  if (port !== undefined && port !== '' && (port.length > 5 || Number(port) > 65_535)) {
    return refuse(`The Host header ${show} has a port outside 0-65535.`);
  }
  if (host.startsWith('[')) {
    return isIP(host.slice(1, -1)) === 6
      ? { ok: true, hostname: host.toLowerCase() }
      : refuse(`The Host header ${show} is not a valid IPv6 literal.`);
  }
  if (isIP(host) === 4) return { ok: true, hostname: host };
  // One trailing dot marks an absolute name (RFC 1034 section 3.1); `host..` has an empty label.
  const name = (host.endsWith('.') ? host.slice(0, -1) : host).toLowerCase();
  if (name === '') return refuse(`The Host header ${show} has no host name.`);
  if (name.length > MAX_HOSTNAME_OCTETS) {
    return refuse(`The Host header's name is longer than ${MAX_HOSTNAME_OCTETS} characters.`);
  }
  const labels = name.split('.');
  for (const label of labels) {
    const problem = labelProblem(label);
    if (problem) return refuse(`The Host header ${show} is not a DNS name. ${problem}`);
  }
  if (/^\d+$/.test(labels.at(-1)!)) {
    return refuse(`The Host header ${show} is neither an IPv4 address nor a DNS name (numeric last label).`);
  }
  return { ok: true, hostname: name };
}
