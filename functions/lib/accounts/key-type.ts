/** The two kinds of API key (docs/api.md: Authentication): a route takes one of them. */
export type KeyType = 'publishable' | 'secret';
