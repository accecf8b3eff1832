import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_PREFIX, PUBLIC_ROUTES } from '../../functions/api/session-guard';
import { generateDevKeyPair } from '../../scripts/local/dev-auth';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from './harness';

/**
 * SPEC §6.6: every API route requires a valid session of an allowed domain. The routes are read from the
 * Hono app itself, so a route added later is in this matrix without anyone adding it here.
 */

let h: ApiHarness;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  h = await startApiHarness();
  const foreign = generateDevKeyPair();
  tokens.member = await h.token(MEMBER);
  tokens.admin = await h.token(ADMIN);
  tokens.expired = await h.token(MEMBER, { now: new Date(Date.now() - 2 * 3600_000), ttlSeconds: 600 });
  tokens.foreignKey = await h.token(ADMIN, { privateKeyPem: foreign.privateKeyPem });
  tokens.foreignDomain = await h.token('mallory@evil.example');
  tokens.otherSite = await h.token(ADMIN, { azp: 'https://evil.example' });
  // Issue 12 item 5 / issue 13: only a verified address, parsed as exactly one address, of an allowed domain.
  tokens.unverified = await h.token('pat@oakproperties.example', { unverified: true });
  tokens.claimUnverified = await h.token('quinn@oakproperties.example', {
    extra: { email: 'quinn@oakproperties.example', email_verified: false },
  });
  tokens.doubleAtClaim = await h.token('mallory1@evil.example', {
    extra: { email: 'mallory@evil.example@oakproperties.example', email_verified: true },
  });
  tokens.doubleAtClerk = await h.token('mallory@evil.example@oakproperties.example');
  // A member's token with the payload rewritten to claim the admin's email; the signature no longer matches.
  const [head, payload, sig] = tokens.member.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...claims, email: ADMIN })).toString('base64url');
  tokens.tampered = `${head}.${forged}.${sig}`;
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

function routeList() {
  const seen = new Set<string>();
  const out: Array<{ method: string; path: string }> = [];
  for (const r of h.app.routes) {
    if (r.method === 'ALL') continue; // middleware
    const key = `${r.method} ${r.path}`;
    if (!seen.has(key)) seen.add(key);
    else continue;
    out.push({ method: r.method, path: r.path });
  }
  return out;
}
const concrete = (path: string) => path.replace(/:(\w+)/g, 'x_$1_missing');
const label = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

async function statusOf(r: { method: string; path: string }, token?: string) {
  const res = await h.call(r.method, concrete(r.path), {
    ...(token ? { token } : {}),
    ...(r.method === 'GET' ? {} : { body: {} }),
  });
  const body = (await res.text()).trim();
  return { status: res.status, body };
}

test('the app has the routes this matrix is meant to cover', () => {
  const routes = routeList().map(label);
  expect(routes.length).toBeGreaterThanOrEqual(12);
  for (const expected of [
    'GET /api/conversations',
    'GET /api/conversations/:id',
    'POST /api/chat',
    'POST /api/conversations/:cid/actions/:aid/approve',
    'PUT /api/admin/instructions',
  ]) {
    expect(routes).toContain(expected);
  }
  // Every public entry names a real route (no stale allow-list entries).
  for (const p of PUBLIC_ROUTES) expect(routes).toContain(p);
});

describe('public routes answer without a session', () => {
  test('GET /health and GET /api/config are open', async () => {
    expect((await h.call('GET', '/health')).status).toBe(200);
    expect((await h.call('GET', '/api/config')).status).toBe(200);
  });
  test('the dev sign-in routes do not exist outside a local stack', async () => {
    expect((await h.call('GET', '/api/dev/team')).status).toBe(404);
    expect((await h.call('POST', '/api/dev/session', { body: { email: ADMIN } })).status).toBe(404);
  });
});

describe('every other route × every bad credential', () => {
  const cases: Array<[string, string | undefined, number, RegExp]> = [
    ['no token', undefined, 401, /sign in required/i],
    ['an expired token', 'expired', 401, /expired/i],
    ['a tampered token', 'tampered', 401, /signature/i],
    ['a token signed by another key', 'foreignKey', 401, /signature/i],
    ['a token issued for another site', 'otherSite', 401, /another site/i],
    ['a foreign email domain', 'foreignDomain', 403, /evil\.example/],
    ['an unverified email (looked up in Clerk)', 'unverified', 403, /not verified/],
    ['an unverified email claim', 'claimUnverified', 403, /not verified/],
    ['two @ in a verified email claim', 'doubleAtClaim', 403, /not a single valid email address/],
    ['two @ in the Clerk primary email', 'doubleAtClerk', 403, /not a single valid email address/],
  ];

  test('protected routes refuse each bad credential with the right status and a clear JSON message', async () => {
    const protectedRoutes = routeList().filter((r) => !PUBLIC_ROUTES.has(label(r)));
    expect(protectedRoutes.length).toBeGreaterThanOrEqual(10);
    const failures: string[] = [];
    const refused = new Map<number, number>();
    for (const r of protectedRoutes) {
      for (const [name, tokenName, status, message] of cases) {
        const got = await statusOf(r, tokenName ? tokens[tokenName] : undefined);
        refused.set(got.status, (refused.get(got.status) ?? 0) + 1);
        let parsed: { error?: { message?: string; code?: string } } = {};
        try {
          parsed = JSON.parse(got.body);
        } catch {}
        if (got.status !== status || !message.test(parsed.error?.message ?? '')) {
          failures.push(`${label(r)} with ${name}: ${got.status} ${got.body.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    console.info(
      `[figure] auth matrix: ${protectedRoutes.length} protected routes × ${cases.length} bad credentials = ` +
        `${protectedRoutes.length * cases.length} requests; refused ${[...refused].map(([k, v]) => `${v}×${k}`).join(', ')}`,
    );
  });

  test('a non-admin is refused (403) on admin routes and let through everywhere else', async () => {
    const failures: string[] = [];
    const routes = routeList().filter((x) => !PUBLIC_ROUTES.has(label(x)));
    for (const r of routes) {
      const asMember = await statusOf(r, tokens.member);
      const asAdmin = await statusOf(r, tokens.admin);
      if (r.path.startsWith(ADMIN_PREFIX)) {
        if (asMember.status !== 403 || !/admin/i.test(asMember.body))
          failures.push(`${label(r)} member → ${asMember.status}`);
        if ([401, 403].includes(asAdmin.status)) failures.push(`${label(r)} admin → ${asAdmin.status}`);
      } else if ([401, 403].includes(asMember.status)) {
        failures.push(`${label(r)} member → ${asMember.status} ${asMember.body.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    const admin = routes.filter((r) => r.path.startsWith(ADMIN_PREFIX)).length;
    // The baseline of the matrix above: the same routes with good sessions are let through.
    console.info(
      `[figure] auth matrix baseline: ${routes.length} routes × member and admin sessions: member refused on ` +
        `${admin} admin routes (403), let through on ${routes.length - admin}; admin let through on all ${routes.length}`,
    );
  });
});

test('an unknown API path is still the JSON 404, not a 401', async () => {
  const res = await h.call('GET', '/api/does-not-exist');
  expect(res.status).toBe(404);
  expect((await res.json()).error.code).toBe('not_found');
});
