import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EmulatedDatedWebhook } from '../emulators/openphone';
import { type LocalStack, startLocalStack } from '../local/stack';
import { formatTable, runDoctor } from './run';

/**
 * `npm run doctor` against the whole local stack (every vendor emulator, the gateway URL as
 * PUBLIC_BASE_URL): all green, then red with the fix for the states the emulators can be put in.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const rowsOf = async () => runDoctor({ ...stack.env });

test('the local stack is all green: every configured vendor ok, nothing warned or failing', async () => {
  const rows = await rowsOf();
  const table = formatTable(rows);
  expect(
    rows.filter((r) => r.result === 'fail' || r.result === 'warn'),
    table,
  ).toEqual([]);
  const ok = rows.filter((r) => r.result === 'ok').map((r) => r.check);
  for (const check of ['Quo API key', 'Quo webhook', 'Twilio credentials', 'Twilio from-number', 'ClickUp'])
    expect(
      ok.some((c) => c.startsWith(check)),
      table,
    ).toBe(true);
  expect(rows.find((r) => r.check === 'Quo webhook')?.detail).toBe(
    `message.received → ${stack.url}/webhooks/openphone (legacy webhook, openphone-signature)`,
  );
  expect(rows.find((r) => r.check === 'Twilio from-number')?.detail).toBe('+14155550190 is on the account');
}, 60_000);

test('red with the fix: no webhook at our URL, a disabled one, a from-number the account does not own', async () => {
  const op = stack.emulators!.openphone;
  const tw = stack.emulators!.twilio;
  const url = `${stack.url}/webhooks/openphone`;
  const hook = {
    id: 'WHother0001',
    userId: 'US0',
    orgId: 'OR0',
    label: null,
    status: 'enabled' as const,
    url: 'https://elsewhere.example/hook',
    key: 'k',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    deletedAt: null,
    events: ['message.received'],
    resourceIds: ['*'],
  };
  const owner = (await (
    await fetch(`${op.url}/v1/phone-numbers`, {
      headers: { authorization: stack.env.OPENPHONE_API_KEY as string },
    })
  ).json()) as {
    data: Array<{ users: Array<{ id: string }> }>;
  };
  hook.userId = owner.data[0]?.users[0]?.id ?? 'US0';
  try {
    op.state.webhooks = [hook];
    let quo = (await rowsOf()).find((r) => r.check === 'Quo webhook');
    expect(quo).toMatchObject({
      result: 'fail',
      detail: `no message.received webhook points at ${url} (neither GET /v1/webhooks nor GET /webhooks lists one)`,
    });
    expect(quo?.fix).toContain('POST /webhooks with x-quo-api-version: 2026-03-30');
    expect(quo?.fix).toContain(`create one in Quo for message.received → ${url}`);

    op.state.webhooks = [{ ...hook, url, status: 'disabled' }];
    quo = (await rowsOf()).find((r) => r.check === 'Quo webhook');
    expect(quo).toMatchObject({
      result: 'fail',
      detail: `message.received → ${url} is disabled (legacy webhook, openphone-signature)`,
      fix: 'enable it in Quo',
    });

    op.state.webhooks = [{ ...hook, url, resourceIds: ['PNassist001'] }];
    quo = (await rowsOf()).find((r) => r.check === 'Quo webhook');
    expect(quo).toMatchObject({
      result: 'fail',
      detail: `message.received → ${url} is limited to PNassist001, not our line +14155550100 (PNshared001)`,
      fix: 'add PNshared001 to the webhook\'s resourceIds (or use ["*"])',
    });

    tw.state.incomingNumbers = ['+14155550999'];
    const twilio = (await rowsOf()).find((r) => r.check === 'Twilio from-number');
    expect(twilio).toMatchObject({ result: 'fail', fix: 'set TWILIO_FROM_NUMBER' });
  } finally {
    op.state.webhooks = undefined;
    tw.state.incomingNumbers = ['+14155550190'];
  }
  expect((await rowsOf()).filter((r) => r.result === 'fail')).toEqual([]);
}, 60_000);

/** A 2026-03-30 webhook as `GET /webhooks` lists it (test/contracts/vendor/quo/api/webhooks.list.2026-03-30.json). */
const dated = (url: string, over: Partial<EmulatedDatedWebhook> = {}): EmulatedDatedWebhook => ({
  id: '123',
  orgId: 'OR123',
  label: 'Switchboard',
  status: 'enabled',
  url,
  createdAt: '2026-04-13T12:00:00.000Z',
  updatedAt: '2026-04-13T12:00:00.000Z',
  events: ['message.received', 'message.delivered'],
  resourceIds: ['*'],
  apiVersion: '2026-03-30',
  ...over,
});

test('a 2026-03-30 webhook (GET /webhooks) is read too: green alone, red or amber in each state it can be in', async () => {
  const op = stack.emulators!.openphone;
  const url = `${stack.url}/webhooks/openphone`;
  const quoRow = async () => (await rowsOf()).find((r) => r.check === 'Quo webhook');
  try {
    op.state.webhooks = [];
    op.state.datedWebhooks = [dated(url)];
    expect(await quoRow()).toMatchObject({
      result: 'ok',
      detail: `message.received → ${url} (2026-03-30 webhook, webhook-signature)`,
    });
    // The doctor asked with the version header, as Quo requires (the emulator answers 400 without it).
    expect(op.state.requests.some((r) => r.path === '/webhooks' && r.status === 200)).toBe(true);

    op.state.datedWebhooks = [dated(url, { status: 'disabled' })];
    expect(await quoRow()).toMatchObject({
      result: 'fail',
      detail: `message.received → ${url} is disabled (2026-03-30 webhook, webhook-signature)`,
      fix: 'enable it: PATCH /webhooks/123 {"status":"enabled"} with x-quo-api-version: 2026-03-30',
    });

    op.state.datedWebhooks = [dated(url, { apiVersion: '2027-01-15' })];
    const pinned = await quoRow();
    expect(pinned).toMatchObject({
      result: 'fail',
      detail: `message.received → ${url} is pinned to API version 2027-01-15; Switchboard reads 2026-03-30 bodies`,
    });
    expect(pinned?.fix).toContain('create a webhook with x-quo-api-version: 2026-03-30');

    // Both generations at our URL: every text twice, and one of the two keys cannot be ours.
    op.state.webhooks = undefined;
    op.state.datedWebhooks = [dated(url)];
    const both = await quoRow();
    expect(both).toMatchObject({ result: 'warn', fix: 'keep one: delete or disable the others' });
    expect(both?.detail).toContain('2 webhooks send message.received');
    expect(both?.detail).toContain(
      'legacy webhook, openphone-signature; 2026-03-30 webhook, webhook-signature',
    );
  } finally {
    op.state.webhooks = undefined;
    op.state.datedWebhooks = [];
  }
  expect((await rowsOf()).filter((r) => r.result === 'fail' || r.result === 'warn')).toEqual([]);
}, 60_000);
