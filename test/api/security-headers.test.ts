import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startGateway } from '../../scripts/local/gateway';
import { clerkFrontendApi, pwaSecurityHeaders } from '../../shared/src/domain/security-headers';
import { type ApiHarness, MEMBER, ORIGIN, startApiHarness } from './harness';

/**
 * Issue 12: the API and the PWA send CSP, X-Content-Type-Options, frame-ancestors/X-Frame-Options and
 * Referrer-Policy (HSTS on AWS); CORS is same-origin only.
 */
let h: ApiHarness;
let member: string;
beforeAll(async () => {
  h = await startApiHarness({ env: { PUBLIC_BASE_URL: ORIGIN } });
  member = await h.token(MEMBER);
}, 60_000);
afterAll(async () => h?.stop());

const expectHardened = (res: Response) => {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
};

describe('API', () => {
  test('every answer carries the headers: success, 401, 404, 400', async () => {
    for (const res of [
      await h.call('GET', '/api/conversations', { token: member }),
      await h.call('GET', '/api/conversations'),
      await h.call('GET', '/api/nope', { token: member }),
      await h.call('POST', '/api/conversations/c/actions/a/approve', { token: member, body: '{bad' }),
      await h.call('GET', '/health'),
    ]) {
      expectHardened(res);
      expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('CORS: a preflight from another origin is refused and never allowed; the own origin is fine', async () => {
    const pre = (origin: string) =>
      h.call('OPTIONS', '/api/conversations', {
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
    const evil = await pre('https://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    const own = await pre(ORIGIN);
    expect(own.status).not.toBe(403);
    expect(own.headers.get('access-control-allow-origin')).toBeNull();
    const cross = await h.call('GET', '/api/conversations', {
      token: member,
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('HSTS on AWS', async () => {
    const aws = await startApiHarness({ env: { PUBLIC_BASE_URL: ORIGIN, STAGE: 'aws' } }).catch(
      () => undefined,
    );
    if (!aws) return expect.fail('an AWS-stage API could not be built for the test');
    try {
      const res = await aws.call('GET', '/health');
      expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d+; includeSubDomains$/);
    } finally {
      await aws.stop();
    }
  });
});

describe('PWA (local server)', () => {
  let root: string;
  let gateway: Server;
  const prodKey = `pk_live_${Buffer.from('clerk.oakproperties.example$').toString('base64')}`;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'pwa-'));
    await writeFile(join(root, 'index.html'), '<!doctype html><title>Switchboard</title>');
    gateway = await startGateway({
      port: 0,
      routes: [],
      staticRoot: root,
      staticHeaders: pwaSecurityHeaders({ clerkPublishableKey: prodKey, onAws: false }),
    });
  });
  afterAll(async () => {
    await new Promise<void>((r) => gateway.close(() => r()));
    await rm(root, { recursive: true, force: true });
  });

  test('the shell carries a CSP that allows production Clerk and nothing else from outside', async () => {
    const res = await fetch(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}/chat`);
    expect(res.status).toBe(200);
    expectHardened(res);
    const csp = res.headers.get('content-security-policy') ?? '';
    const dir = (name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `)) ?? '';
    expect(clerkFrontendApi(prodKey)).toBe('https://clerk.oakproperties.example');
    expect(dir('script-src')).toContain('https://clerk.oakproperties.example');
    expect(dir('script-src')).toContain('https://challenges.cloudflare.com');
    expect(dir('connect-src')).toContain('https://clerk.oakproperties.example');
    expect(dir('connect-src')).toContain('https://*.protect.clerk.com:*');
    expect(dir('img-src')).toContain('https://img.clerk.com');
    // Message photos are blob URLs of /api/media/:id (fetched with the token); no other outside image host.
    expect(dir('img-src')).toBe("img-src 'self' data: blob: https://img.clerk.com");
    expect(dir('worker-src')).toBe("worker-src 'self' blob:");
    expect(dir('style-src')).toContain("'unsafe-inline'");
    expect(dir('frame-src')).toContain('https://challenges.cloudflare.com');
    expect(dir('default-src')).toBe("default-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    // The only wildcard is Clerk's documented abuse-protection host.
    expect(
      csp.replaceAll('https://*.protect.clerk.com:*', '').replaceAll('https://*.protect.clerk.com', ''),
    ).not.toContain('*');
  });
});
