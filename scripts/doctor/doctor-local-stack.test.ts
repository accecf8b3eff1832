import { afterAll, beforeAll, expect, test } from 'vitest';
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
      detail: `no legacy message.received webhook points at ${url}`,
    });
    expect(quo?.fix).toContain(`create one in Quo for message.received → ${url}`);

    op.state.webhooks = [{ ...hook, url, status: 'disabled' }];
    quo = (await rowsOf()).find((r) => r.check === 'Quo webhook');
    expect(quo).toMatchObject({
      result: 'fail',
      detail: `message.received → ${url} is disabled`,
      fix: 'enable it in Quo',
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
