import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { signedBodyFetch } from './signed-fetch';

/** What reaches the origin: a real HTTP server on 127.0.0.1 records the headers the PWA's fetch sent. */
let seen: { headers: IncomingHttpHeaders; body: string } | undefined;
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    seen = { headers: req.headers, body };
    res.end('ok');
  });
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

test('a POST body carries its SHA-256 (hex), as CloudFront OAC requires to sign it for a function URL', async () => {
  const body = JSON.stringify({ text: 'Can you text Lena that the plumber comes at 3 — ok? ✅' });
  await signedBodyFetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  expect(seen?.body).toBe(body);
  expect(seen?.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(body, 'utf8').digest('hex'));
});

test('the session moves out of Authorization (CloudFront puts its signature there) into the session header', async () => {
  await signedBodyFetch(url, {
    method: 'POST',
    body: '{}',
    headers: { authorization: 'Bearer abc.def.ghi' },
  });
  expect(seen?.headers.authorization).toBeUndefined();
  expect(seen?.headers['x-switchboard-session']).toBe('Bearer abc.def.ghi');
});
