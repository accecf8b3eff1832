import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from '../../../scripts/emulators/openphone';
import { DEMO_LINES } from '../../../scripts/emulators/seed/demo-team';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import type { SmsGateway } from '../ports/sms-gateway';
import { createOpenPhoneHttpGateway, OpenPhoneApiError, type OpenPhoneHttpOptions } from './openphone-http';

const API_KEY = 'op_test_key';
const MARIA = '+14155550111';
const BOB = '+14155550121';

let emulator: OpenPhoneEmulator;
let gateway: SmsGateway;

const make = (overrides: Partial<OpenPhoneHttpOptions> = {}) =>
  createOpenPhoneHttpGateway({
    baseUrl: emulator.url,
    apiKey: API_KEY,
    retry: { retries: 2, minTimeoutMs: 5, maxTimeoutMs: 10 },
    sleep: async () => {},
    ...overrides,
  });

beforeAll(async () => {
  emulator = await startOpenPhoneEmulator({ apiKey: API_KEY });
  gateway = make();
});
afterAll(() => emulator.stop());
beforeEach(() => {
  emulator.state.requests.length = 0;
  emulator.state.clearScripted();
});

const requestsTo = (path: string, method = 'GET') =>
  emulator.state.requests.filter((r) => r.path === path && r.method === method);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the call to fail');
}

describe('reads', () => {
  it('lists the workspace lines with their users', async () => {
    const lines = await gateway.listPhoneNumbers();
    expect(lines.map((l) => [l.id, l.number])).toEqual([
      [DEMO_LINES.shared.id, DEMO_LINES.shared.number],
      [DEMO_LINES.assistant.id, DEMO_LINES.assistant.number],
    ]);
    expect(lines[0]?.users.map((u) => u.name)).toEqual(['Alex Rivera', 'Sam Chen', 'Jo Patel']);
  });

  it('lists every contact with E.164 phones', async () => {
    const contacts = await gateway.listContacts();
    const maria = contacts.find((c) => c.id === 'ct_maria');
    expect(contacts).toHaveLength(9);
    expect(maria).toMatchObject({
      displayName: 'Maria Lopez',
      role: 'tenant, 12 Oak St #2',
      phones: [{ label: 'mobile', value: MARIA, e164: MARIA }],
      emails: [{ label: 'email', value: 'maria.lopez@mail.example' }],
    });
  });

  it('pages through a conversation newest first, by line number or id', async () => {
    const first = await gateway.listMessages({
      line: DEMO_LINES.shared.number,
      participants: [MARIA],
      maxResults: 1,
    });
    expect(first.items.map((m) => m.text)).toEqual(['Thanks Maria, we will send someone tomorrow morning.']);
    expect(first.nextPageToken).not.toBeNull();
    const second = await gateway.listMessages({
      line: DEMO_LINES.shared.id,
      participants: ['(415) 555-0111'],
      maxResults: 1,
      pageToken: first.nextPageToken ?? undefined,
    });
    expect(second.items).toMatchObject([
      { direction: 'incoming', from: MARIA, lineId: DEMO_LINES.shared.id },
    ]);
    expect(second.nextPageToken).toBeNull();
  });

  it('filters messages by creation time', async () => {
    const recent = await gateway.listMessages({
      line: DEMO_LINES.shared.id,
      participants: [BOB],
      createdAfter: new Date(Date.now() - 23.5 * 3600_000),
    });
    expect(recent.items.map((m) => m.text)).toEqual(['Yes, I can be there at 9.']);
  });

  it('gets one message, and a missing one is NotFoundError', async () => {
    expect(await gateway.getMessage('AChist0004bob')).toMatchObject({
      from: BOB,
      text: 'Yes, I can be there at 9.',
    });
    expect(await rejection(gateway.getMessage('ACnope'))).toBeInstanceOf(NotFoundError);
  });

  it('lists calls and reads a summary and a transcript', async () => {
    const calls = await gateway.listCalls({ line: DEMO_LINES.shared.id, participant: MARIA });
    expect(calls.items).toMatchObject([{ id: 'ACcall0001maria', status: 'completed', durationSeconds: 142 }]);
    expect(await gateway.getCall('ACcall0002lead')).toMatchObject({ status: 'missed', answeredAt: null });

    const summary = await gateway.getCallSummary('ACcall0001maria');
    expect(summary.status).toBe('completed');
    expect(summary.nextSteps).toContain('Book the plumber for tomorrow morning.');

    const transcript = await gateway.getCallTranscript('ACcall0001maria');
    expect(transcript.dialogue[1]).toMatchObject({
      speaker: MARIA,
      userId: null,
      text: expect.stringContaining('Maria'),
    });
    expect(transcript.dialogue[0]?.userId).toMatch(/^US/);
  });

  it('a call without a summary is NotFoundError', async () => {
    expect(await rejection(gateway.getCallSummary('ACcall0002lead'))).toBeInstanceOf(NotFoundError);
  });

  it('refuses an unparseable participant before calling out', async () => {
    const err = await rejection(
      gateway.listMessages({ line: DEMO_LINES.shared.id, participants: ['not a number'] }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(emulator.state.requests).toHaveLength(0);
  });
});

describe('contacts', () => {
  it('creates, reads, updates and deletes a contact', async () => {
    const created = await gateway.createContact({
      firstName: 'Nora',
      lastName: 'Quinn',
      role: 'tenant, 7 Birch Rd #1',
      phones: [{ label: 'mobile', number: '(415) 555-0177' }],
      emails: [{ label: 'home', value: 'nora@mail.example' }],
    });
    expect(created).toMatchObject({ displayName: 'Nora Quinn', phones: [{ e164: '+14155550177' }] });
    expect(emulator.state.contacts.get(created.id)?.defaultFields.phoneNumbers[0]?.value).toBe(
      '+14155550177',
    );

    const updated = await gateway.updateContact(created.id, { company: 'Quinn Design' });
    expect(updated).toMatchObject({
      company: 'Quinn Design',
      firstName: 'Nora',
      phones: [{ e164: '+14155550177' }],
    });
    expect((await gateway.getContact(created.id)).company).toBe('Quinn Design');

    await gateway.deleteContact(created.id);
    expect(await rejection(gateway.getContact(created.id))).toBeInstanceOf(NotFoundError);
    expect(await rejection(gateway.deleteContact(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('refuses an invalid phone number or an empty patch without calling out', async () => {
    expect(
      await rejection(gateway.createContact({ firstName: 'X', phones: [{ label: 'mobile', number: '12' }] })),
    ).toBeInstanceOf(ValidationError);
    expect(await rejection(gateway.updateContact('ct_maria', {}))).toBeInstanceOf(ValidationError);
    expect(emulator.state.requests).toHaveLength(0);
  });
});

describe('sending', () => {
  it('sends exactly once, exactly this text, from the chosen line', async () => {
    const before = emulator.state.sent.length;
    const sent = await gateway.sendMessage({
      from: DEMO_LINES.shared.number,
      to: '415-555-0111',
      text: 'The plumber comes at 3pm today.',
    });
    expect(sent).toMatchObject({
      direction: 'outgoing',
      status: 'queued',
      to: [MARIA],
      lineId: DEMO_LINES.shared.id,
    });
    expect(emulator.state.sent.slice(before)).toEqual([
      expect.objectContaining({
        from: DEMO_LINES.shared.number,
        to: [MARIA],
        text: 'The plumber comes at 3pm today.',
      }),
    ]);
    expect(requestsTo('/v1/messages', 'POST')).toHaveLength(1);
  });

  it('never retries a send, and flags an unknown outcome after a 5xx', async () => {
    emulator.state.failNext('/v1/messages', 503, { method: 'POST' });
    const before = emulator.state.sent.length;
    const err = await rejection(
      gateway.sendMessage({ from: DEMO_LINES.shared.id, to: MARIA, text: 'Are you home?' }),
    );
    expect(err).toBeInstanceOf(OpenPhoneApiError);
    expect(err).toMatchObject({
      code: 'openphone_unavailable',
      retryable: true,
      outcomeUnknown: true,
      httpStatus: 503,
    });
    expect(requestsTo('/v1/messages', 'POST')).toHaveLength(1);
    expect(emulator.state.sent.length).toBe(before);
  });

  it('a send answered 429 is retried only after a reconcile shows it did not go out', async () => {
    emulator.state.failNext('/v1/messages', 429, { method: 'POST' });
    const before = emulator.state.sent.length;
    const sent = await gateway.sendMessage({
      from: DEMO_LINES.shared.id,
      to: MARIA,
      text: 'Hello after 429',
    });
    expect(sent.text).toBe('Hello after 429');
    const order = emulator.state.requests
      .filter((r) => r.path === '/v1/messages')
      .map((r) => `${r.method} ${r.status}`);
    // POST refused → list (no trace of it) → POST accepted; exactly one message exists.
    expect(order).toEqual(['POST 429', 'GET 200', 'POST 202']);
    expect(emulator.state.sent.length).toBe(before + 1);
  });

  it('a send that stays rate-limited ends "outcome unknown" for the executor, never sent twice', async () => {
    emulator.state.failNext('/v1/messages', 429, { method: 'POST', times: 10 });
    const err = await rejection(
      make({ sendRetries: 2 }).sendMessage({ from: DEMO_LINES.shared.id, to: MARIA, text: 'Still limited' }),
    );
    expect(err).toMatchObject({ code: 'openphone_rate_limited', retryable: true, outcomeUnknown: true });
    expect(requestsTo('/v1/messages', 'POST')).toHaveLength(3);
    expect(emulator.state.sent.filter((m) => m.text === 'Still limited')).toHaveLength(0);
  });

  it('surfaces Quo’s reason when it rejects a send', async () => {
    emulator.state.respondNext('/v1/messages', {
      status: 400,
      method: 'POST',
      body: {
        message: 'A2P Registration Not Approved',
        code: '0206400',
        status: 400,
        docs: 'https://openphone.com/docs',
        title: 'A2P Registration Not Approved',
      },
    });
    const err = await rejection(
      gateway.sendMessage({ from: DEMO_LINES.shared.id, to: MARIA, text: 'Hello' }),
    );
    expect(err).toMatchObject({ code: 'openphone_rejected', retryable: false, vendorCode: '0206400' });
    expect((err as Error).message).toContain('A2P Registration Not Approved');
  });

  it('refuses blank, oversized or misaddressed texts before calling out', async () => {
    for (const input of [
      { from: DEMO_LINES.shared.id, to: MARIA, text: '   ' },
      { from: DEMO_LINES.shared.id, to: MARIA, text: 'x'.repeat(1601) },
      { from: DEMO_LINES.shared.id, to: '555', text: 'hi' },
      { from: 'the shared line', to: MARIA, text: 'hi' },
    ]) {
      expect(await rejection(gateway.sendMessage(input))).toBeInstanceOf(ValidationError);
    }
    expect(emulator.state.requests).toHaveLength(0);
  });

  it('an unknown sending line is a ForbiddenError (Quo: Not Phone Number User)', async () => {
    const err = await rejection(gateway.sendMessage({ from: '+14155550999', to: MARIA, text: 'hi' }));
    expect(err).toBeInstanceOf(ForbiddenError);
  });
});

describe('findSentMessage (reconciliation after a crash)', () => {
  it('finds the message that went out, and nothing for a different text, recipient or time', async () => {
    const since = new Date();
    const text = `Reconcile me ${since.getTime()}`;
    await gateway.sendMessage({ from: DEMO_LINES.shared.id, to: BOB, text });

    const found = await gateway.findSentMessage({
      from: DEMO_LINES.shared.number,
      to: BOB,
      text: ` ${text} `,
      since,
    });
    expect(found).toMatchObject({ direction: 'outgoing', to: [BOB], text });

    expect(
      await gateway.findSentMessage({ from: DEMO_LINES.shared.id, to: BOB, text: `${text}!`, since }),
    ).toBeNull();
    expect(await gateway.findSentMessage({ from: DEMO_LINES.shared.id, to: MARIA, text, since })).toBeNull();
    const strict = make({ reconcileSkewMs: 0 });
    const later = new Date(since.getTime() + 60_000);
    expect(
      await strict.findSentMessage({ from: DEMO_LINES.shared.id, to: BOB, text, since: later }),
    ).toBeNull();
  });

  it('says "not sent" after a send that failed before Quo accepted it', async () => {
    const since = new Date();
    const text = `Never delivered ${since.getTime()}`;
    emulator.state.failNext('/v1/messages', 503, { method: 'POST' });
    await rejection(gateway.sendMessage({ from: DEMO_LINES.shared.id, to: BOB, text }));
    expect(await gateway.findSentMessage({ from: DEMO_LINES.shared.id, to: BOB, text, since })).toBeNull();
  });
});

describe('errors and retries', () => {
  it('a wrong API key is a non-retryable typed error, tried once', async () => {
    const err = await rejection(make({ apiKey: 'wrong' }).listPhoneNumbers());
    expect(err).toBeInstanceOf(OpenPhoneApiError);
    expect(err).toMatchObject({ code: 'openphone_unauthorized', retryable: false, httpStatus: 401 });
    expect(requestsTo('/v1/phone-numbers')).toHaveLength(1);
  });

  it('retries a read through 429 and 5xx, then succeeds', async () => {
    emulator.state.failNext('/v1/contacts/ct_bob', 429);
    emulator.state.failNext('/v1/contacts/ct_bob', 502);
    const bob = await gateway.getContact('ct_bob');
    expect(bob.company).toBe('Martinez Plumbing');
    expect(requestsTo('/v1/contacts/ct_bob').map((r) => r.status)).toEqual([429, 502, 200]);
  });

  it('waits for Retry-After before retrying a read', async () => {
    emulator.state.failNext('/v1/calls/ACcall0002lead', 429, { retryAfterSeconds: 1 });
    const waits: number[] = [];
    await make({ sleep: async (ms) => void waits.push(ms) }).getCall('ACcall0002lead');
    // p-retry's own (tiny) delay plus our top-up reach what the server asked for.
    expect(Math.max(...waits)).toBeGreaterThanOrEqual(980);
  });

  it('gives up after the bounded number of retries with a retryable error', async () => {
    emulator.state.failNext('/v1/messages/AChist0001maria', 503, { times: 10 });
    const err = await rejection(gateway.getMessage('AChist0001maria'));
    expect(err).toMatchObject({ code: 'openphone_unavailable', retryable: true, outcomeUnknown: false });
    expect(requestsTo('/v1/messages/AChist0001maria')).toHaveLength(3);
    emulator.state.clearScripted();
  });

  it('a 403 is a ForbiddenError and is not retried', async () => {
    emulator.state.failNext('/v1/call-transcripts/*', 403);
    expect(await rejection(gateway.getCallTranscript('ACcall0001maria'))).toBeInstanceOf(ForbiddenError);
    expect(emulator.state.requests).toHaveLength(1);
  });

  it('a response in the wrong shape is a clear typed error, not retried', async () => {
    emulator.state.respondNext('/v1/contacts/ct_maria', {
      status: 200,
      body: { data: { id: 42, defaultFields: {} } },
    });
    const err = await rejection(gateway.getContact('ct_maria'));
    expect(err).toBeInstanceOf(OpenPhoneApiError);
    expect(err).toMatchObject({ code: 'openphone_bad_response', retryable: false });
    expect((err as Error).message).toMatch(/data\.id/);
    expect(emulator.state.requests).toHaveLength(1);
  });

  it('a body that is not JSON is a clear typed error', async () => {
    emulator.state.respondNext('/v1/phone-numbers', { status: 200, body: '<html>gateway</html>' });
    expect(await rejection(gateway.listPhoneNumbers())).toMatchObject({ code: 'openphone_bad_response' });
  });

  it('an unreachable server is retryable for reads and "outcome unknown" for sends', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const offline = createOpenPhoneHttpGateway({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: API_KEY,
      retry: { retries: 0 },
    });

    expect(await rejection(offline.listPhoneNumbers())).toMatchObject({
      code: 'openphone_unreachable',
      retryable: true,
      outcomeUnknown: false,
    });
    expect(
      await rejection(offline.sendMessage({ from: DEMO_LINES.shared.id, to: MARIA, text: 'hi' })),
    ).toMatchObject({
      code: 'openphone_unreachable',
      outcomeUnknown: true,
    });
  });
});
