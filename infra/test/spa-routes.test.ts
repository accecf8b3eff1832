import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

/**
 * The CloudFront Function's own file, run in Node exactly as deployed (no export: CloudFront calls the global
 * `handler`), on events shaped as CloudFront passes them to a viewer-request function (event structure 1.0,
 * lower-case header names; see test/contracts/vendor/aws/README.md).
 */
const source = readFileSync(join(import.meta.dirname, '..', 'lib', 'edge', 'spa-routes.js'), 'utf8');
type CfRequest = { method: string; uri: string; querystring: object; headers: object; cookies: object };
type CfResponse = { statusCode: number; headers: Record<string, { value: string }>; body: { data: string } };
const handler = new Function(`${source}\nreturn handler;`)() as (e: unknown) => CfRequest | CfResponse;

function viewerRequest(uri: string, querystring: object = {}, method = 'GET') {
  return {
    version: '1.0',
    context: {
      distributionDomainName: 'd111111abcdef8.cloudfront.net',
      distributionId: 'EDFDVBD6EXAMPLE',
      eventType: 'viewer-request',
      requestId: '4TyzHTaYWb1GX1qTfsHhEqV6HUDd_BzoBZnwfnvQc_1oF26ClkoUSEQ==',
    },
    viewer: { ip: '198.51.100.11' },
    request: {
      method,
      uri,
      querystring,
      headers: { host: { value: 'd111111abcdef8.cloudfront.net' }, accept: { value: 'text/html' } },
      cookies: {},
    },
  };
}

describe('PWA routes at the edge', () => {
  test.each(['/chat', '/chat/', '/approvals', '/conversations/01JC9Z3K8Q', '/settings/notifications'])(
    'app route %s is served index.html',
    (uri) => {
      const out = handler(viewerRequest(uri)) as CfRequest;
      expect(out.uri).toBe('/index.html');
    },
  );

  test('a deep link keeps its query string (the PWA reads ?id= after loading)', () => {
    const qs = { id: { value: 'conv_01JC9Z' } };
    const out = handler(viewerRequest('/chat', qs)) as CfRequest;
    expect(out).toMatchObject({ uri: '/index.html', querystring: qs });
  });

  test.each([
    '/assets/index-4f2a9c.js',
    '/sw.js',
    '/manifest.webmanifest',
    '/icons/icon-192.png',
    '/index.html',
  ])('file %s passes through unchanged', (uri) => {
    const out = handler(viewerRequest(uri)) as CfRequest;
    expect(out.uri).toBe(uri);
  });

  test.each(['/api', '/api/nope', '/webhooks', '/webhooks/unknown'])(
    'an API path that reached the PWA behaviour (%s) is a JSON 404, never index.html',
    (uri) => {
      const out = handler(viewerRequest(uri, {}, 'POST')) as CfResponse;
      expect(out.statusCode).toBe(404);
      expect(out.headers['content-type']?.value).toMatch(/^application\/json/);
      expect(JSON.parse(out.body.data)).toEqual({
        error: { code: 'not_found', message: `No route for POST ${uri}` },
      });
    },
  );

  test('a quote in the path cannot break the JSON body', () => {
    const out = handler(viewerRequest('/api/"x')) as CfResponse;
    expect(JSON.parse(out.body.data).error.code).toBe('not_found');
  });

  test('paths that only start like the API (/apiary) are app routes', () => {
    expect((handler(viewerRequest('/apiary')) as CfRequest).uri).toBe('/index.html');
  });
});
