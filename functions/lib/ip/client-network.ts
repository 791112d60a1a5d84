import { parseIp } from './parse-ip.js';

/**
 * The network a client address stands for, for limits counted per client: an IPv4 address is
 * itself; an IPv6 address is its /64, the smallest block a site is given (RFC 6177) and the one a
 * host picks new addresses in at will (RFC 8981), so counting addresses would give one client
 * 2^64 shares. An IPv4-mapped IPv6 address is its IPv4 address. Text that is no address (which a
 * gateway never gives) stands for itself, so it still counts, and counts apart from any address.
 */
export function clientNetwork(address: string): string {
  const ip = parseIp(address);
  if (!ip) return address;
  if (ip.lookupFamily === 4) return ip.lookupAddress;
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2)
    groups.push((((ip.bytes[i] as number) << 8) | (ip.bytes[i + 1] as number)).toString(16));
  return `${groups.join(':')}::/64`;
}
