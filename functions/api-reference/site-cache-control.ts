// In a module of its own, with nothing to load, so that the function serving GET /v1/openapi.json
// (functions/openapi/handler.ts) says the same as the reference page without loading the site.

/**
 * Browsers may keep a file of the site, and the OpenAPI document it shows, for an hour; a deploy
 * invalidates CloudFront's copies.
 */
export const SITE_CACHE_CONTROL = 'public, max-age=3600';
