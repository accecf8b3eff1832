import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ClerkEmulator, startClerkEmulator } from '../../../scripts/emulators/clerk';
import { generateDevKeyPair } from '../../../scripts/local/dev-auth';
import { parseEmailAddress } from '../domain/email-address';
import { clerkUserLookup } from './clerk-user-lookup';
import { signDevSessionToken } from './dev-session';
import { createSessionVerifier } from './session-verifier';

/**
 * Issue 13 (Clerk) and issue 12 item 5: a stock v2 session token (no email) is resolved through Clerk's
 * Backend API once per user per TTL; a custom `email` claim counts only with `email_verified`; unverified
 * addresses and anything that is not exactly one address are refused.
 */
const ORIGIN = 'https://switchboard.test';
const keys = generateDevKeyPair();
let clerk: ClerkEmulator;
let now = Date.parse('2026-11-23T12:00:00Z');
beforeAll(async () => {
  clerk = await startClerkEmulator();
});
afterAll(async () => {
  await clerk?.stop();
});

const verifier = (withLookup = true) =>
  createSessionVerifier({
    jwtKey: keys.publicKeyPem,
    authorizedParties: [ORIGIN],
    allowedDomains: ['oakproperties.example'],
    adminEmails: ['alex@oakproperties.example'],
    ...(withLookup
      ? {
          lookupUser: clerkUserLookup({
            secretKey: clerk.secretKey,
            apiUrl: clerk.url,
            ttlMs: 60_000,
            clock: () => new Date(now),
          }),
        }
      : {}),
  });
const sign = async (userId: string, extra?: Record<string, unknown>) =>
  (
    await signDevSessionToken(keys.privateKeyPem, {
      userId,
      azp: ORIGIN,
      issuer: 'https://clerk.test',
      ...(extra ? { extra } : {}),
    })
  ).token;
const lookups = (id: string) => clerk.requests.filter((r) => r.path === `/v1/users/${id}`).length;

describe('stock v2 tokens', () => {
  test('carry no email; the user is looked up once per TTL, concurrent first requests share it', async () => {
    const id = clerk.addUser({ email: 'Sam@OakProperties.example', firstName: 'Sam', lastName: 'Chen' });
    const token = await sign(id);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(claims).sort()).toEqual([
      'azp',
      'exp',
      'fva',
      'iat',
      'iss',
      'nbf',
      'sid',
      'sts',
      'sub',
      'v',
    ]);
    const verify = verifier();
    const users = await Promise.all([verify(token), verify(token), verify(token)]);
    expect(users[0]).toEqual({ id, email: 'sam@oakproperties.example', name: 'Sam Chen', isAdmin: false });
    expect(lookups(id)).toBe(1);
    now += 59_000;
    await verify(token);
    expect(lookups(id)).toBe(1);
    now += 2_000;
    await verify(token);
    expect(lookups(id)).toBe(2);
  });

  test('an unverified primary email is refused, and becomes usable once verified (after the TTL)', async () => {
    const id = clerk.addUser({ email: 'new@oakproperties.example', verified: false });
    const verify = verifier();
    await expect(verify(await sign(id))).rejects.toMatchObject({
      status: 403,
      message: expect.stringMatching(/not verified/),
    });
    clerk.setVerified(id, true);
    now += 61_000;
    await expect(verify(await sign(id))).resolves.toMatchObject({ email: 'new@oakproperties.example' });
  });

  test('an unknown user is refused; without CLERK_SECRET_KEY the refusal says what to set', async () => {
    await expect(verifier()(await sign('user_missing'))).rejects.toMatchObject({ status: 403 });
    await expect(verifier(false)(await sign('user_missing'))).rejects.toThrow(/CLERK_SECRET_KEY/);
  });

  test('Clerk unreachable is a retryable upstream error, not a refusal', async () => {
    const down = createSessionVerifier({
      jwtKey: keys.publicKeyPem,
      authorizedParties: [ORIGIN],
      allowedDomains: ['oakproperties.example'],
      adminEmails: [],
      lookupUser: clerkUserLookup({ secretKey: clerk.secretKey, apiUrl: 'http://127.0.0.1:9' }),
    });
    await expect(down(await sign('user_x'))).rejects.toMatchObject({ status: 502, retryable: true });
  });
});

describe('custom email claims', () => {
  test('are used, without a look-up, only beside email_verified', async () => {
    const verify = verifier();
    const before = clerk.requests.length;
    await expect(
      verify(await sign('user_claims', { email: 'alex@oakproperties.example', email_verified: true })),
    ).resolves.toMatchObject({ email: 'alex@oakproperties.example', isAdmin: true });
    expect(clerk.requests.length).toBe(before);
    await expect(
      verify(await sign('user_claims2', { email: 'alex@oakproperties.example', email_verified: false })),
    ).rejects.toThrow(/not verified/);
    // An email claim alone is not proof: the user is looked up (and here does not exist).
    await expect(
      verify(await sign('user_claims3', { email: 'alex@oakproperties.example' })),
    ).rejects.toMatchObject({
      status: 403,
    });
    expect(lookups('user_claims3')).toBe(1);
  });
});

describe('the domain allow-list sees one parsed address', () => {
  test('two @, display names, quoted or malformed addresses are not addresses', () => {
    for (const bad of [
      'mallory@evil.example@oakproperties.example',
      'Mallory <mallory@oakproperties.example>',
      '"a@b"@oakproperties.example',
      'mallory@oakproperties',
      '@oakproperties.example',
      'a..b@oakproperties.example',
      'mallory@-oak.example',
    ])
      expect(parseEmailAddress(bad), bad).toBeNull();
    expect(parseEmailAddress(' Sam.Chen+ops@OakProperties.example ')).toEqual({
      address: 'sam.chen+ops@oakproperties.example',
      local: 'sam.chen+ops',
      domain: 'oakproperties.example',
    });
  });

  test('mallory@evil.example@oakproperties.example is refused, from a claim or from Clerk', async () => {
    const verify = verifier();
    await expect(
      verify(
        await sign('user_m1', { email: 'mallory@evil.example@oakproperties.example', email_verified: true }),
      ),
    ).rejects.toThrow(/not a single valid email address/);
    const id = clerk.addUser({ email: 'mallory@evil.example@oakproperties.example', id: 'user_m2' });
    await expect(verify(await sign(id))).rejects.toThrow(/not a single valid email address/);
    await expect(
      verify(
        await sign('user_m3', { email: 'mallory@oakproperties.example.evil.example', email_verified: true }),
      ),
    ).rejects.toThrow(/domain is not allowed/);
  });
});
