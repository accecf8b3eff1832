import { afterAll, beforeAll, expect, test } from 'vitest';
import { type GoogleEmulator, startGoogleEmulator } from '../../../scripts/emulators/google';
import { GOOGLE_TOOL_GROUPS } from '../adapters/google/tool-groups';
import { buildGoogleToolDeps } from '../composition/tool-deps';
import { googleTools } from './google';
import { bindAll, ToolRegistry } from './registry';

/**
 * Issue 13: one token per tool group. With Calendar's scope not delegated, Calendar tools say so plainly
 * (naming the scope) and Gmail and Drive keep working; the emulator refused only the Calendar token.
 */
let emu: GoogleEmulator;
beforeAll(async () => {
  emu = await startGoogleEmulator();
  emu.delegatedScopes.delete('https://www.googleapis.com/auth/calendar.events');
});
afterAll(async () => {
  await emu?.stop();
});

const ctx = {
  conversationId: 'c',
  runId: 'r',
  now: new Date('2026-11-23T15:00:00Z'),
  timezone: 'America/New_York',
};

test('a missing Calendar scope switches Calendar off and leaves Gmail and Drive working', async () => {
  const deps = buildGoogleToolDeps({
    ...emu.env,
    TEAM_NAME: 'Oak Properties',
    TEAM_TIMEZONE: 'America/New_York',
    EMAIL_BODY_LIMIT: 4000,
  });
  const registry = new ToolRegistry(bindAll(googleTools, deps!));
  const mail = (await registry.get('search_emails').run({ query: 'heater', limit: 5 }, ctx)) as {
    count: number;
  };
  expect(mail.count).toBeGreaterThanOrEqual(0);
  await expect(registry.get('search_drive').run({ query: 'lease', limit: 5 }, ctx)).resolves.toBeTruthy();
  const err = await registry
    .get('list_calendar_events')
    .run({ day: '2026-11-24' }, ctx)
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'integration_disabled', retryable: false });
  expect(String((err as Error).message)).toMatch(
    /Google Calendar is switched off.*https:\/\/www\.googleapis\.com\/auth\/calendar\.events.*Other Google tools still work/,
  );
  // Each group asked for its own scopes only.
  const scopes = emu.state.tokenRequests.map((t) => t.scopes.join(' '));
  expect(scopes).toContain(GOOGLE_TOOL_GROUPS.gmail.scopes.join(' '));
  expect(scopes).toContain(GOOGLE_TOOL_GROUPS.drive.scopes.join(' '));
  expect(
    scopes.every((s) => !s.includes('calendar') || s === GOOGLE_TOOL_GROUPS.calendar.scopes.join(' ')),
  ).toBe(true);
});
