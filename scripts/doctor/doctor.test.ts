import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import webpush from 'web-push';
import { type AnthropicEmulator, startAnthropicEmulator } from '../emulators/anthropic';
import { type ClerkEmulator, startClerkEmulator } from '../emulators/clerk';
import { type ClickUpEmulator, startClickUpEmulator } from '../emulators/clickup';
import { type GitServer, startGitServer } from '../emulators/git-server';
import { type GoogleEmulator, startGoogleEmulator } from '../emulators/google';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from '../emulators/openphone';
import { startTwilioEmulator, type TwilioEmulator } from '../emulators/twilio';
import type { Row } from './checks';
import { blocking, formatTable, runDoctor } from './run';

/**
 * `npm run doctor` against the emulators: all green (no blocking row) when everything is right, and each
 * failing state it can detect is red (or a warning) with its fix. The clock is injected.
 */
const NOW = new Date('2026-12-01T12:00:00Z');
let anthropic: AnthropicEmulator;
let clerk: ClerkEmulator;
let google: GoogleEmulator;
let clickup: ClickUpEmulator;
let gitServer: GitServer;
let openphone: OpenPhoneEmulator;
let twilio: TwilioEmulator;
let env: Record<string, string>;
const vapid = webpush.generateVAPIDKeys();

beforeAll(async () => {
  anthropic = await startAnthropicEmulator({ apiKey: 'sk-ant-doctor', now: () => NOW.getTime() });
  clerk = await startClerkEmulator();
  google = await startGoogleEmulator();
  clickup = await startClickUpEmulator({ token: 'pk_doctor' });
  gitServer = await startGitServer();
  // The workspace's webhook points at our URL and the from-number is the account's, as on a healthy deployment.
  openphone = await startOpenPhoneEmulator({
    apiKey: 'op_doctor',
    webhookUrl: 'https://switchboard.example/webhooks/openphone',
  });
  twilio = await startTwilioEmulator({
    accountSid: `AC${'1'.repeat(32)}`,
    authToken: 'tw_doctor',
    incomingNumbers: ['+14155550190'],
  });
  env = {
    TABLE_NAME: 't',
    EVENTS_QUEUE_URL: 'http://127.0.0.1:1/q',
    PUBLIC_BASE_URL: 'https://switchboard.example',
    ANTHROPIC_API_KEY: 'sk-ant-doctor',
    ANTHROPIC_BASE_URL: anthropic.url,
    CLERK_JWT_KEY: 'pem',
    CLERK_SECRET_KEY: clerk.secretKey,
    CLERK_API_URL: clerk.url,
    ...google.env,
    CLICKUP_API_BASE: clickup.apiBase,
    CLICKUP_API_TOKEN: 'pk_doctor',
    CLICKUP_TEAM_ID: clickup.teamId,
    OPENPHONE_API_BASE: openphone.url,
    OPENPHONE_API_KEY: 'op_doctor',
    TWILIO_API_BASE: twilio.url,
    TWILIO_ACCOUNT_SID: `AC${'1'.repeat(32)}`,
    TWILIO_AUTH_TOKEN: 'tw_doctor',
    TWILIO_FROM_NUMBER: '+14155550190',
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    MEMORY_GIT_URL: await gitServer.createBareRepo('memory'),
  };
}, 60_000);
afterAll(async () => {
  for (const s of [anthropic, clerk, google, clickup, gitServer, openphone, twilio]) await s?.stop();
});

const run = (over: Record<string, string> = {}) => runDoctor({ ...env, ...over }, { now: NOW });
const find = (rows: Row[], check: RegExp) => rows.filter((r) => check.test(r.check));

test('against healthy emulators nothing is blocking, and the table has one row per check', async () => {
  const rows = await run();
  expect(
    rows.filter((r) => r.result === 'fail'),
    formatTable(rows),
  ).toEqual([]);
  expect(blocking(rows)).toBe(false);
  for (const name of [
    /Anthropic ANTHROPIC_MODEL/,
    /Clerk secret key/,
    /Google Gmail/,
    /ClickUp/,
    /VAPID/,
    /Memory/,
  ])
    expect(find(rows, name)[0]?.result, String(name)).toBe('ok');
  expect(formatTable(rows)).toMatch(/^check\s+│ result │ detail/);
});

describe('each failing state is detected with its fix', () => {
  test('a retired model (after 2026-11-30 on the injected clock)', async () => {
    const rows = await run({ ANTHROPIC_MODEL: 'claude-sonnet-4-5' });
    expect(find(rows, /ANTHROPIC_MODEL$/)[0]).toMatchObject({
      result: 'fail',
      detail: expect.stringMatching(/end of life on 2026-11-30/),
      fix: expect.stringMatching(/claude-sonnet-5-5/),
    });
    expect(blocking(rows)).toBe(true);
  });

  test('a model the API does not serve, and a wrong Anthropic key', async () => {
    expect(find(await run({ ANTHROPIC_HELPER_MODEL: 'claude-haiku-9' }), /HELPER/)[0]).toMatchObject({
      result: 'fail',
    });
    expect(find(await run({ ANTHROPIC_API_KEY: 'sk-ant-wrong' }), /ANTHROPIC_MODEL$/)[0]?.detail).toMatch(
      /401/,
    );
  });

  test('a wrong Clerk secret key, and none at all', async () => {
    expect(find(await run({ CLERK_SECRET_KEY: 'sk_test_wrong' }), /Clerk/)[0]).toMatchObject({
      result: 'fail',
    });
    const { CLERK_SECRET_KEY: _drop, ...withoutKey } = env;
    const rows = await runDoctor(withoutKey, { now: NOW });
    expect(find(rows, /Clerk session email/)[0]).toMatchObject({
      result: 'warn',
      fix: expect.stringMatching(/CLERK_SECRET_KEY/),
    });
  });

  test('an undelegated Google scope switches one group off (warning naming the scope)', async () => {
    google.delegatedScopes.delete('https://www.googleapis.com/auth/calendar.events');
    try {
      const rows = await run();
      expect(find(rows, /Google Calendar/)[0]).toMatchObject({
        result: 'warn',
        fix: expect.stringMatching(/calendar\.events/),
      });
      expect(find(rows, /Google Gmail/)[0]?.result).toBe('ok');
    } finally {
      google.delegatedScopes.add('https://www.googleapis.com/auth/calendar.events');
    }
  });

  test('a wrong ClickUp token or team', async () => {
    expect(find(await run({ CLICKUP_API_TOKEN: 'pk_wrong' }), /ClickUp/)[0]).toMatchObject({
      result: 'fail',
    });
    expect(find(await run({ CLICKUP_TEAM_ID: '999' }), /ClickUp/)[0]?.fix).toMatch(
      new RegExp(clickup.teamId),
    );
  });

  test('wrong Quo and Twilio credentials', async () => {
    expect(find(await run({ OPENPHONE_API_KEY: 'op_wrong' }), /Quo/)[0]).toMatchObject({ result: 'fail' });
    expect(find(await run({ TWILIO_AUTH_TOKEN: 'wrong' }), /Twilio/)[0]).toMatchObject({ result: 'fail' });
  });

  test('a 2026-03-30 webhook with a legacy (bare base64) secret: amber, with the key to use', async () => {
    openphone.state.webhooks = [];
    openphone.state.datedWebhooks = [
      {
        id: '123',
        orgId: 'OR123',
        label: null,
        status: 'enabled',
        url: 'https://switchboard.example/webhooks/openphone',
        createdAt: '2026-04-13T12:00:00.000Z',
        updatedAt: '2026-04-13T12:00:00.000Z',
        events: ['message.received'],
        resourceIds: ['*'],
        apiVersion: '2026-03-30',
      },
    ];
    try {
      const [quo] = find(await run({ OPENPHONE_WEBHOOK_SECRET: 'c2VjcmV0' }), /Quo webhook/);
      expect(quo).toMatchObject({ result: 'warn' });
      expect(quo?.detail).toContain('OPENPHONE_WEBHOOK_SECRET has no whsec_ prefix');
      const [good] = find(await run({ OPENPHONE_WEBHOOK_SECRET: 'whsec_c2VjcmV0' }), /Quo webhook/);
      expect(good).toMatchObject({ result: 'ok' });
    } finally {
      openphone.state.webhooks = undefined;
      openphone.state.datedWebhooks = [];
    }
  });

  test('a VAPID pair that does not match', async () => {
    const other = webpush.generateVAPIDKeys();
    expect(find(await run({ VAPID_PUBLIC_KEY: other.publicKey }), /VAPID/)[0]).toMatchObject({
      result: 'fail',
    });
  });

  test('an unreachable memory repository', async () => {
    const rows = await run({ MEMORY_GIT_URL: gitServer.repoUrl('missing') });
    expect(find(rows, /Memory/)[0]).toMatchObject({
      result: 'fail',
      detail: expect.stringMatching(/not reachable/),
    });
  });

  test('a configuration that does not parse is the one blocking row', async () => {
    const rows = await runDoctor({}, { now: NOW });
    expect(rows).toEqual([expect.objectContaining({ check: 'Configuration', result: 'fail' })]);
  });
});

test('the write check leaves nothing behind in the memory repository', async () => {
  const url = await gitServer.createBareRepo('memory-clean');
  const rows = await run({ MEMORY_GIT_URL: url });
  expect(find(rows, /Memory/)[0]?.result).toBe('ok');
  const git = (await import('isomorphic-git')).default;
  const http = (await import('isomorphic-git/http/node')).default;
  const refs = await git.listServerRefs({ http, url, prefix: 'refs/heads/' });
  expect(refs.filter((r) => r.ref.includes('doctor-scratch'))).toEqual([]);
});
