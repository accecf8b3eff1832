import { generateKeyPairSync } from 'node:crypto';
import { gmail } from '@googleapis/gmail';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../../scripts/emulators/google';
import { ConfigError } from '../../errors';
import { createGoogleAuth, GOOGLE_TOKEN_URL, parseServiceAccount } from './auth';
import { callGoogle } from './google-errors';

let emu: GoogleEmulator;

beforeAll(async () => {
  emu = await startGoogleEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

const profile = (auth: ReturnType<typeof createGoogleAuth>) =>
  callGoogle('profile', () =>
    gmail({ version: 'v1', auth, rootUrl: `${emu.url}/`, retryConfig: { retry: 0 } }).users.getProfile({
      userId: 'me',
    }),
  );

describe('createGoogleAuth (service account, domain-wide delegation)', () => {
  it('exchanges a signed assertion at the key file token_uri and acts as the delegated user', async () => {
    const before = emu.state.tokensIssued;
    const auth = createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: emu.mailbox });
    const res = await profile(auth);
    expect(res.data.emailAddress).toBe(emu.mailbox);
    await profile(auth);
    // The access token is cached between calls: one exchange, two API calls.
    expect(emu.state.tokensIssued).toBe(before + 1);
  });

  it('an explicit tokenUrl wins over the key file token_uri', async () => {
    const key = { ...emu.serviceAccount, token_uri: GOOGLE_TOKEN_URL };
    const auth = createGoogleAuth({ serviceAccount: key, subject: emu.mailbox, tokenUrl: emu.tokenUrl });
    await expect(profile(auth)).resolves.toBeTruthy();
  });

  it('is refused when the assertion is signed with a different key', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = {
      ...emu.serviceAccount,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    const auth = createGoogleAuth({ serviceAccount: forged, subject: emu.mailbox });
    await expect(profile(auth)).rejects.toMatchObject({ code: 'upstream_auth_failed', retryable: false });
  });

  it('is refused for a scope the Workspace admin did not delegate', async () => {
    const auth = createGoogleAuth({
      serviceAccount: emu.serviceAccountJson,
      subject: emu.mailbox,
      scopes: ['https://www.googleapis.com/auth/admin.directory.user'],
    });
    await expect(profile(auth)).rejects.toMatchObject({ code: 'upstream_auth_failed' });
  });

  it('is refused for a user outside the Workspace domain', async () => {
    const auth = createGoogleAuth({
      serviceAccount: emu.serviceAccountJson,
      subject: 'someone@elsewhere.example',
    });
    await expect(profile(auth)).rejects.toMatchObject({ code: 'upstream_auth_failed' });
  });

  it('the emulator answers 401 to API calls without a valid access token', async () => {
    const none = await fetch(`${emu.url}/gmail/v1/users/me/profile`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('invalid_token');
    const bogus = await fetch(`${emu.url}/gmail/v1/users/me/profile`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(bogus.status).toBe(401);
    expect(await bogus.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });

  it('rejects key JSON that is not a service account key', () => {
    expect(() => parseServiceAccount('{not json')).toThrow(ConfigError);
    expect(() => parseServiceAccount(JSON.stringify({ type: 'authorized_user' }))).toThrow(
      /service account key/,
    );
    expect(() => createGoogleAuth({ serviceAccount: emu.serviceAccountJson, subject: '' })).toThrow(
      ConfigError,
    );
  });
});
