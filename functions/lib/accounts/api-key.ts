import { createHash, randomBytes } from 'node:crypto';
import type { KeyMode } from '../test-mode/mode.js';
import type { KeyType } from './key-type.js';

// Key format (ours to choose; docs/api.md: Authentication, "Key format"): a readable type prefix and 32
// base64url characters of randomness (192 bits), e.g. `ni_pub_3q2-…` or `ni_sec_Zk9…`; test keys
// (docs/test-mode.md) say so first: `ni_test_pub_…`, `ni_test_sec_…`. The record, not the prefix, decides
// a key's mode. Only the SHA-256 of a key is stored; lookups are by that hash.
export const KEY_PREFIX: Record<KeyType, string> = { publishable: 'ni_pub_', secret: 'ni_sec_' };
export const TEST_KEY_PREFIX: Record<KeyType, string> = {
  publishable: 'ni_test_pub_',
  secret: 'ni_test_sec_',
};
const KEY_PATTERN = /^ni_(test_)?(pub|sec)_[A-Za-z0-9_-]{32}$/;

export function generateApiKey(type: KeyType, mode: KeyMode = 'live'): string {
  return (mode === 'test' ? TEST_KEY_PREFIX : KEY_PREFIX)[type] + randomBytes(24).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Cheap syntactic check before any lookup, so junk keys never reach the database. */
export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function newKeyId(): string {
  return `key_${randomBytes(9).toString('base64url')}`;
}
