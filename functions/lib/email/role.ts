import { stripPlusTag } from './normalize.js';

/**
 * Role account (the field `isRoleAccount`, the reason `role_account`): the local part, lowercased and
 * without a +tag, is on the role list (admin, info, noreply and similar).
 */
export function isRoleLocalPart(localPart: string, roles: ReadonlySet<string>): boolean {
  return roles.has(stripPlusTag(localPart.toLowerCase()));
}
