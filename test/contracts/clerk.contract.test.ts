import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ClerkEmulator, startClerkEmulator } from '../../scripts/emulators/clerk';
import { generateDevKeyPair } from '../../scripts/local/dev-auth';
import { clerkUserLookup } from '../../shared/src/auth/clerk-user-lookup';
import { signDevSessionToken } from '../../shared/src/auth/dev-session';

/** Dev tokens, the users emulator and the look-up against what Clerk publishes (test/contracts/vendor/clerk/). */
const read = (f: string) => JSON.parse(readFileSync(`test/contracts/vendor/clerk/${f}`, 'utf8'));
const keysOf = (o: object) =>
  Object.keys(o)
    .filter((k) => !k.startsWith('_'))
    .sort();

let clerk: ClerkEmulator;
beforeAll(async () => {
  clerk = await startClerkEmulator();
});
afterAll(async () => {
  await clerk?.stop();
});

test('dev session tokens carry exactly the default v2 claims (no email)', async () => {
  const doc = read('session-token-v2.json') as { default_claims: string[]; example: Record<string, unknown> };
  const { token } = await signDevSessionToken(generateDevKeyPair().privateKeyPem, {
    userId: 'user_1',
    azp: 'https://x.example',
    issuer: 'https://clerk.x.example',
  });
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<
    string,
    unknown
  >;
  expect(Object.keys(claims).sort()).toEqual([...doc.default_claims].sort());
  for (const k of ['v', 'sts'] as const) expect(claims[k]).toEqual(doc.example[k]);
  expect(Array.isArray(claims.fva) && claims.fva.length === 2).toBe(true);
});

test('the emulator answers GET /v1/users/{id} and its errors with the published fields', async () => {
  const id = clerk.addUser({ email: 'sam@oakproperties.example', firstName: 'Sam', lastName: 'Chen' });
  const get = (path: string, key = clerk.secretKey) =>
    fetch(`${clerk.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const user = (await (await get(`/v1/users/${id}`)).json()) as Record<string, unknown>;
  const example = read('get-user-response.json') as Record<string, unknown>;
  expect(keysOf(user)).toEqual(keysOf(example));
  const email = (user.email_addresses as object[])[0]!;
  expect(keysOf(email)).toEqual(keysOf((example.email_addresses as object[])[0]!));
  const errors = read('errors.json') as Record<string, { errors: object[] }>;
  const missing = await get('/v1/users/user_none');
  expect(missing.status).toBe(404);
  expect(keysOf((await missing.json()).errors[0])).toEqual(keysOf(errors['404']!.errors[0]!));
  const badKey = await get(`/v1/users/${id}`, 'sk_test_wrong');
  expect(badKey.status).toBe(401);
  expect((await badKey.json()).errors[0].code).toBe('authentication_invalid');
});

test('the look-up reads the primary email and its verification the way the SDK parses them', async () => {
  const id = clerk.addUser({ email: 'jo@oakproperties.example', verified: false });
  const lookup = clerkUserLookup({ secretKey: clerk.secretKey, apiUrl: clerk.url });
  expect(await lookup(id)).toEqual({ email: 'jo@oakproperties.example', verified: false });
  expect(await lookup('user_none')).toBeNull();
  await expect(clerkUserLookup({ secretKey: 'sk_test_wrong', apiUrl: clerk.url })(id)).rejects.toMatchObject({
    status: 502,
  });
});
