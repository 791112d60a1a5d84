import { promises as dns } from 'node:dns';

/**
 * Reverse DNS (PTR) for ?include=hostname: the first name, or null on any failure or after
 * `timeoutMs`. Uses the same configurable servers as the email checks (DNS_SERVERS).
 */
export async function reverseLookup(ip: string, servers: string[], timeoutMs = 1000): Promise<string | null> {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length > 0) resolver.setServers(servers);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const names = await Promise.race([resolver.reverse(ip), deadline]);
    const first = names?.[0];
    return first ? first.replace(/\.$/, '').toLowerCase() : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    resolver.cancel();
  }
}
