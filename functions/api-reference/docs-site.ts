import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeByName } from '../routes.js';
import { SITE_CACHE_CONTROL } from './site-cache-control.js';

// The site around the API reference: `/` redirects to /docs, the page (Swagger UI's static files,
// an index and its start script) and the favicon. The local server serves it from here
// (scripts/local/api-gateway.ts); the stack uploads SITE_FILES to the docs bucket and CloudFront's
// viewer-request function applies the same SITE_REDIRECTS and SITE_ALIASES (infra/constructs/edge.ts).
// The dashboard (web/dashboard) is part of the site under DASHBOARD_PATH; its files come from its
// build, its headers from here.

export const DOCS_PATH = '/docs';
export const DASHBOARD_PATH = '/dashboard';

/** Paths answered with a 302 to another path of the site. */
export const SITE_REDIRECTS: Readonly<Record<string, string>> = { '/': DOCS_PATH };

/** Paths that serve a file of another name: the bucket only holds the files. */
export const SITE_ALIASES: Readonly<Record<string, string>> = {
  [DOCS_PATH]: `${DOCS_PATH}/index.html`,
  [`${DOCS_PATH}/`]: `${DOCS_PATH}/index.html`,
  '/favicon.ico': `${DOCS_PATH}/favicon.svg`,
  [DASHBOARD_PATH]: `${DASHBOARD_PATH}/index.html`,
  [`${DASHBOARD_PATH}/`]: `${DASHBOARD_PATH}/index.html`,
};

/**
 * The page's Content-Security-Policy: scripts and styles only from files of the site (no inline
 * script: the start script is a file), images also as data: URIs (Swagger UI's icons), and
 * requests only to this origin (the API description and "Try it out").
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard's Content-Security-Policy: like the docs', and requests may also go to the storage
 * origin list-job files are uploaded to (a presigned POST: S3's regional endpoint of the jobs
 * bucket in AWS, the local S3 emulator's address locally). Forms post nowhere but here.
 */
export function dashboardCsp(uploadOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${uploadOrigin}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The dashboard's page is asked for again on every visit: it names the current build's files. */
export const DASHBOARD_PAGE_CACHE_CONTROL = 'no-cache';
/** Its other files have their content's hash in their names: cached for good. */
export const DASHBOARD_ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The site's own files, the edge's and the local gateway's setting (site-cache-control.ts). */
export { SITE_CACHE_CONTROL } from './site-cache-control.js';

export interface SiteFile {
  /** Its path on the site, under DOCS_PATH. */
  path: string;
  contentType: string;
  body(): Buffer | string;
  /** Default SITE_CACHE_CONTROL. */
  cacheControl?: string;
}

/** The headers the local server sends with a dashboard file (CloudFront: the same, from the policy). */
export function dashboardHeaders(file: SiteFile, uploadOrigin: string): Record<string, string> {
  return {
    'Content-Type': file.contentType,
    'Cache-Control': file.cacheControl ?? SITE_CACHE_CONTROL,
    'Content-Security-Policy': dashboardCsp(uploadOrigin),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

function swaggerUiFile(name: string, contentType: string): SiteFile {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  return { path: `${DOCS_PATH}/${name}`, contentType, body: () => readFileSync(join(dir, name)) };
}

const FAVICON = fileURLToPath(new URL('../openapi/favicon.svg', import.meta.url));

const SPEC_URL = routeByName('openapi').path;

/** The page: Swagger UI's bundle and styles, then our start script (no inline script). */
export function docsIndexHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netintel API reference</title>
<link rel="icon" type="image/svg+xml" href="/favicon.ico">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/start.js"></script>
</body>
</html>
`;
}

/**
 * Starts Swagger UI on the API description. No validator badge (it would load an image from
 * swagger.io); operations listed, collapsed, linkable; the schemas section folded.
 */
export function docsStartScript(): string {
  const options = {
    url: SPEC_URL,
    dom_id: '#ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    validatorUrl: null,
  };
  return `window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, { presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' }));\n`;
}

/** Every file of the site. */
export function siteFiles(): SiteFile[] {
  return [
    { path: `${DOCS_PATH}/index.html`, contentType: 'text/html; charset=utf-8', body: docsIndexHtml },
    { path: `${DOCS_PATH}/start.js`, contentType: 'text/javascript; charset=utf-8', body: docsStartScript },
    swaggerUiFile('swagger-ui.css', 'text/css; charset=utf-8'),
    swaggerUiFile('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
    { path: `${DOCS_PATH}/favicon.svg`, contentType: 'image/svg+xml', body: () => readFileSync(FAVICON) },
  ];
}

/** The file a request path serves (through SITE_ALIASES), if any. */
export function siteFile(path: string): SiteFile | undefined {
  const target = SITE_ALIASES[path] ?? path;
  return siteFiles().find((f) => f.path === target);
}
