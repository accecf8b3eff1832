import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetEmailPollDeps } from '../../functions/email-poll';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { insertEmail, triggerPoll } from '../../scripts/simulate-email';
import type { LocalRuntime } from '../../scripts/simulate-sms';
import { type EventOf, eventEnvelope } from '../../shared/src/contracts/events';
import { type InboundBackends, startInboundBackends, TEST_WEBHOOK_SECRET } from './fixtures';

/**
 * `npm run simulate:email` end to end: the email goes into the Google emulator through Gmail's
 * `users.messages.insert` (the real client, service-account delegation), the email-poll handler runs as the
 * scheduler runs it, and exactly one `email.received` lands on the real queue (fauxqs) with what was sent.
 * The emulator starts empty so the only mail in the inbox is what the command puts there.
 */
const ZONE = 'America/New_York';
let emu: GoogleEmulator;
let be: InboundBackends;
let runtime: LocalRuntime;
let dir: string;

beforeAll(async () => {
  emu = await startGoogleEmulator({ seed: false });
  be = await startInboundBackends({ ...emu.env, TEAM_TIMEZONE: ZONE });
  resetEmailPollDeps();
  // What `npm start` writes to .local/runtime.json, restricted to what the command and the poll read.
  runtime = {
    url: 'http://127.0.0.1:1',
    openPhoneWebhookSecret: TEST_WEBHOOK_SECRET,
    env: {
      ...emu.env,
      TEAM_TIMEZONE: ZONE,
      STAGE: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: be.tableName,
      DYNAMODB_ENDPOINT: be.dynamoEndpoint,
      SQS_ENDPOINT: be.sqsEndpoint,
      EVENTS_QUEUE_URL: be.queueUrl,
      OPENPHONE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      LOG_LEVEL: 'ERROR',
    },
  };
  dir = mkdtempSync(join(tmpdir(), 'simulate-email-'));
});
afterAll(async () => {
  resetEmailPollDeps();
  await emu?.stop();
  await be?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const queuedEmails = async () =>
  (await be.drain())
    .map((b) => eventEnvelope.parse(JSON.parse(b)))
    .filter((e): e is EventOf<'email.received'> => e.type === 'email.received');

describe('simulate:email', () => {
  it('insert → poll → exactly one email.received with the sender, subject and body', async () => {
    const inserted = await insertEmail(runtime, {
      from: 'maria.lopez@mail.example',
      subject: 'Dripping tap in 4B',
      text: 'The kitchen tap in 4B has been dripping since Monday. Café closed, so I am home all day.',
    });
    // The client's request as the emulator saw it: users.messages.insert in its JSON form.
    expect(emu.state.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'))).toEqual([
      expect.objectContaining({
        path: '/gmail/v1/users/me/messages',
        search: '?internalDateSource=receivedTime',
        status: 200,
      }),
    ]);
    expect(emu.state.message(inserted.id)).toEqual({
      id: inserted.id,
      threadId: inserted.threadId,
      labelIds: ['INBOX', 'UNREAD', 'CATEGORY_PERSONAL'],
    });

    const result = await triggerPoll(runtime, 'general');
    expect(result.enqueued).toBe(1);
    const events = await queuedEmails();
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.key).toBe(`email:${inserted.threadId}`);
    expect(event?.payload).toMatchObject({
      messageId: inserted.id,
      threadId: inserted.threadId,
      source: 'general',
      subject: 'Dripping tap in 4B',
      to: expect.stringContaining(emu.mailbox),
    });
    expect(event?.payload.from).toContain('maria.lopez@mail.example');
    expect(event?.payload.text.trim()).toBe(
      'The kitchen tap in 4B has been dripping since Monday. Café closed, so I am home all day.',
    );

    // A second schedule finds nothing new.
    expect((await triggerPoll(runtime, 'general')).enqueued).toBe(0);
    expect(await queuedEmails()).toEqual([]);
  });

  it("a display name, a Gmail category and Gmail's DMARC verdict travel with the mail", async () => {
    const team = await insertEmail(runtime, {
      from: 'alex@oakproperties.example',
      name: 'Alex Chen',
      subject: 'Did the plumber confirm?',
      text: 'For 22 Oak tomorrow.',
    });
    const forged = await insertEmail(runtime, {
      from: 'alex@oakproperties.example',
      subject: 'Wire the deposit today',
      text: 'Urgent.',
      dmarc: 'fail',
    });
    const promo = await insertEmail(runtime, {
      from: 'deals@shop.example',
      name: 'Shop',
      subject: '40% off smart locks',
      text: 'This weekend only.',
      labels: ['CATEGORY_PROMOTIONS'],
    });
    expect(emu.state.message(promo.id)?.labelIds).toEqual(['INBOX', 'UNREAD', 'CATEGORY_PROMOTIONS']);
    // The general inbox's query leaves promotions out, as Gmail would.
    expect((await triggerPoll(runtime, 'general')).enqueued).toBe(2);
    const byId = new Map((await queuedEmails()).map((e) => [e.payload.messageId, e.payload]));
    expect(byId.has(promo.id)).toBe(false);
    expect(byId.get(team.id)).toMatchObject({
      from: 'Alex Chen <alex@oakproperties.example>',
      dmarc: { result: 'pass', headerFrom: 'oakproperties.example' },
    });
    expect(byId.get(forged.id)?.dmarc).toEqual({ result: 'fail', headerFrom: 'oakproperties.example' });
  });

  it('refuses a display name with angle brackets and a label that is not a Gmail label id', async () => {
    await expect(
      insertEmail(runtime, { from: 'a@b.example', name: 'Evil <x@y>', subject: 's', text: 't' }),
    ).rejects.toThrow(/--name/);
    await expect(
      insertEmail(runtime, { from: 'a@b.example', subject: 's', text: 't', labels: ['Promotions'] }),
    ).rejects.toThrow(/--label/);
  });

  it('the npm command itself, reading runtime.json, enqueues exactly one email.received', async () => {
    const file = join(dir, 'runtime.json');
    writeFileSync(file, JSON.stringify(runtime), { mode: 0o600 });
    // Only what runtime.json says: none of the stack's settings come from this process's environment.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !(k in runtime.env)));
    const { stdout } = await promisify(execFile)(
      'npm',
      [
        'run',
        '--silent',
        'simulate:email',
        '--',
        '--runtime',
        file,
        '--from',
        'David Kim <david.kim@mail.example>',
        '--subject',
        'Heater broken',
        'The heater in unit 2A stopped working last night.',
      ],
      { env, cwd: process.cwd(), timeout: 60_000 },
    );
    const id = /message (\w+) \(thread (\w+)\)/.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    // Both schedules fire without --source; the leads one never matches a tenant.
    expect(stdout).toMatch(/email-poll \{ source: 'general' \} → \{"enqueued":1/);
    expect(stdout).toMatch(/email-poll \{ source: 'leads' \} → \{"enqueued":0/);

    const events = await queuedEmails();
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({
      messageId: id,
      source: 'general',
      subject: 'Heater broken',
      text: expect.stringContaining('The heater in unit 2A stopped working last night.'),
    });
    expect(events[0]?.payload.from).toContain('david.kim@mail.example');
    expect(events[0]?.payload.from).toContain('David Kim');
  }, 90_000);
});
