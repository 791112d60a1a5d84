import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The /docs reference page: Swagger UI's static files (swagger-ui-dist) plus an index page that
// points it at /v1/openapi.json. The local server serves these files; the stack uploads them to
// the docs bucket behind CloudFront's /docs/* behaviour.

export const DOCS_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
] as const;

export function swaggerUiDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function docsAssetPath(name: (typeof DOCS_ASSETS)[number]): string {
  return join(swaggerUiDir(), name);
}

export function docsIndexHtml(specUrl = '/v1/openapi.json'): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>netintel API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout' });
</script>
</body>
</html>
`;
}
