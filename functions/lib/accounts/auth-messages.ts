import type { KeyType } from './key-type.js';

// The authorizer's refusal messages (accounts/authenticate.ts), in a module of their own with
// nothing to load, so that the API reference (api-reference/error-docs.ts) and the gateway responses
// show the very texts the service answers.

/**
 * Why a key was refused, one stable message per case (docs/api.md: Errors), all under the one code
 * `invalid_api_key` (401) or the 403 codes. Clients match on the code; the message is for the person
 * debugging, so it says what to change.
 */
export const AUTH_MESSAGES = {
  // No double quotes: API Gateway's 401 for a request without a key is this text in a static template.
  noKey:
    'No API key was sent: send a secret key in the Authorization header as Bearer <key>, a publishable key in the X-Api-Key header.',
  malformedAuthorization: 'The Authorization header must be "Bearer <secret key>".',
  malformedKey:
    'The API key is malformed: keys are ni_pub_, ni_sec_, ni_test_pub_ or ni_test_sec_ followed by 32 characters.',
  unknownKey: 'The API key is unknown or has been revoked.',
  keyQueryNotRead:
    'The key query parameter is read on GET /v1/geo only: send a secret key in the Authorization header as Bearer <key>, a publishable key in the X-Api-Key header.',
  emptyKey: (where: string) => `The API key in ${where} is empty: send the key there, or leave ${where} out.`,
  twoKeys: 'Send exactly one API key; two different keys were sent.',
  sentTwice: (where: string, times: number) => `Send exactly one API key; ${where} was sent ${times} times.`,
  secretOutsideBearer: 'Send secret keys as "Authorization: Bearer <key>", not in X-Api-Key or ?key=.',
  publishableAsBearer: 'Send publishable keys in the X-Api-Key header, not as a Bearer token.',
  wrongKeyType: (expected: KeyType, sent: KeyType) =>
    `This route takes a ${expected} key; a ${sent} key was sent.`,
  noOrigin:
    "A publishable key needs the request to carry an Origin or Referer header on the key's allowed origins.",
  unreadableOrigin: (header: 'Origin' | 'Referer') =>
    `The ${header} header is not an http(s) origin (scheme://host[:port]), so it is on no key's allowed origins.`,
  repeatedOrigin: (header: 'Origin' | 'Referer') =>
    `The ${header} header was sent more than once; a browser sends one, and two could name two origins.`,
  originNotAllowed: (origin: string) => `The origin ${origin} is not on this key's allowed origins.`,
  liveKeyRequired: "A test key cannot change the account's rules: use a live secret key or the dashboard.",
} as const;
