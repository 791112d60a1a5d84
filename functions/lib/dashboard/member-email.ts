import { parseAddress } from '../email/syntax.js';

/**
 * The form a member's e-mail is stored and looked up in: valid syntax (the API's own rule), the
 * domain in lowercase ASCII and, unlike the API's checks, the local part lowercased too. Sign-in
 * must not depend on how a person typed their address; null when it is not an address.
 */
export function memberEmail(raw: string): string | null {
  const parsed = parseAddress(raw);
  return parsed ? `${parsed.localPart.toLowerCase()}@${parsed.domain}` : null;
}
