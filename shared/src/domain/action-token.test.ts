import { expect, test } from 'vitest';
import { actionTokenKey, mintActionToken, verifyActionToken } from './action-token';

const key = actionTokenKey('vapid-private-key-for-tests');
const now = new Date('2026-11-24T10:00:00Z');
const claims = {
  a: 'act_1',
  c: 'conv_1',
  h: 'hash',
  u: 'user_1',
  m: 'sam@oakproperties.example',
  n: 'Sam Chen',
  e: now.getTime() / 1000 + 60,
};

test('a minted token verifies with its claims; tampered, foreign-key and expired tokens do not', () => {
  const token = mintActionToken(key, claims);
  expect(verifyActionToken(key, token, now)).toEqual({ ok: true, claims });
  const [body, mac] = token.split('.');
  const forged = Buffer.from(JSON.stringify({ ...claims, a: 'act_2' })).toString('base64url');
  expect(verifyActionToken(key, `${forged}.${mac}`, now)).toEqual({ ok: false, reason: 'signature' });
  expect(verifyActionToken(actionTokenKey('other'), token, now)).toEqual({ ok: false, reason: 'signature' });
  expect(verifyActionToken(key, `${body}`, now)).toEqual({ ok: false, reason: 'malformed' });
  expect(verifyActionToken(key, token, new Date(now.getTime() + 61_000))).toEqual({
    ok: false,
    reason: 'expired',
  });
});
