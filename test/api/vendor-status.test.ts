import { afterAll, beforeAll, expect, test } from 'vitest';
import { startGoogleEmulator } from '../../scripts/emulators/google';
import { vendorStatusResponse } from '../../shared/src/contracts/api';
import { ADMIN, MEMBER, startApiHarness } from './harness';

/** The admin screen's vendor notices: a model near its end of life is a warning, past it an error. */
let h: Awaited<ReturnType<typeof startApiHarness>>;
beforeAll(async () => {
  h = await startApiHarness({
    env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_MODEL: 'claude-sonnet-4-5' },
  });
});
afterAll(async () => {
  await h?.stop();
});

const status = async (at: string) => {
  h.api.clock = () => new Date(at);
  const res = await h.call('GET', '/api/admin/vendor-status', { token: await h.token(ADMIN) });
  expect(res.status).toBe(200);
  return vendorStatusResponse.parse(await res.json()).notices;
};

test('a deprecated model is a warning with its date; a retired one an error naming the default', async () => {
  const before = await status('2026-11-23T12:00:00Z');
  expect(before.find((n) => n.check === 'ANTHROPIC_MODEL')).toMatchObject({
    state: 'warning',
    message: expect.stringMatching(/end of life on 2026-11-30 \(in 7 days\).*claude-sonnet-5-5/),
  });
  expect(before.find((n) => n.check === 'ANTHROPIC_HELPER_MODEL')?.state).toBe('ok');
  const after = await status('2026-12-01T00:00:00Z');
  expect(after).toEqual([
    expect.objectContaining({ state: 'error', message: expect.stringMatching(/reached end of life/) }),
  ]);
});

test('members cannot read it', async () => {
  const res = await h.call('GET', '/api/admin/vendor-status', { token: await h.token(MEMBER) });
  expect(res.status).toBe(403);
});

test('a Google group whose scope is not delegated is an error on the admin screen; the others are fine', async () => {
  const google = await startGoogleEmulator();
  google.delegatedScopes.delete('https://www.googleapis.com/auth/calendar.events');
  const g = await startApiHarness({ env: google.env });
  try {
    const res = await g.call('GET', '/api/admin/vendor-status', { token: await g.token(ADMIN) });
    const notices = vendorStatusResponse.parse(await res.json()).notices.filter((n) => n.vendor === 'google');
    expect(notices.map((n) => [n.check, n.state])).toEqual([
      ['gmail', 'ok'],
      ['calendar', 'error'],
      ['drive', 'ok'],
    ]);
    expect(notices[1]?.message).toMatch(/calendar\.events/);
  } finally {
    await g.stop();
    await google.stop();
  }
});
