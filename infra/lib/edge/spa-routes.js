// CloudFront Function (cloudfront-js-2.0), viewer request, attached to the PWA's default behaviour only.
// App routes (/chat, /approvals/abc, …) are client-side: the bucket has no such key, and S3 behind origin
// access control answers 403 for a missing key, so serve index.html for any path whose last segment has no
// file extension. Files (/assets/app.js, /sw.js, /manifest.webmanifest) pass through unchanged. Anything
// under /api or /webhooks that reached this behaviour matched no API route (e.g. "/api" without a slash):
// answer it the way the API answers an unknown path, a JSON 404, never the PWA's HTML.
// biome-ignore lint/correctness/noUnusedVariables: CloudFront calls the global `handler`; nothing imports it.
function handler(event) {
  const request = event.request;
  const uri = request.uri;
  if (/^\/(api|webhooks)(\/|$)/.test(uri)) {
    return {
      statusCode: 404,
      statusDescription: 'Not Found',
      headers: {
        'content-type': { value: 'application/json; charset=utf-8' },
        'cache-control': { value: 'no-store' },
      },
      body: {
        encoding: 'text',
        data: JSON.stringify({
          error: { code: 'not_found', message: `No route for ${request.method} ${uri}` },
        }),
      },
    };
  }
  const last = uri.substring(uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') === -1) request.uri = '/index.html';
  return request;
}
