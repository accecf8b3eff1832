import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import twilio from 'twilio';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTwilioEmulator, type TwilioEmulator } from './twilio';

const ACCOUNT_SID = `AC${'c3'.repeat(16)}`;
const AUTH_TOKEN = 'emulator-token';
const basic = (sid: string, token: string) => `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`;

let emulator: TwilioEmulator;
let receiver: Server;
let callbackUrl: string;
const hits: Array<{ signature: string; body: string }> = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      hits.push({ signature: String(req.headers['x-twilio-signature']), body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/status`;
  emulator = await startTwilioEmulator({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  hits.length = 0;
});

const post = (
  resource: 'Messages' | 'Calls',
  form: Record<string, string | string[]>,
  auth = basic(ACCOUNT_SID, AUTH_TOKEN),
) => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const item of [v].flat()) body.append(k, item);
  return fetch(`${emulator.url}/2010-04-01/Accounts/${ACCOUNT_SID}/${resource}.json`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
};

describe('Twilio emulator REST', () => {
  it('requires HTTP Basic auth with the account SID and auth token', async () => {
    const res = await post(
      'Messages',
      { To: '+14155550103', From: '+14155550190', Body: 'x' },
      basic(ACCOUNT_SID, 'nope'),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      code: 20003,
      status: 401,
      more_info: expect.stringContaining('20003'),
    });
  });

  it('a path for another account is 404', async () => {
    const res = await fetch(`${emulator.url}/2010-04-01/Accounts/AC${'00'.repeat(16)}/Messages.json`, {
      method: 'POST',
      headers: {
        authorization: basic(ACCOUNT_SID, AUTH_TOKEN),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'To=%2B14155550103',
    });
    expect(res.status).toBe(404);
  });

  it.each([
    ['Messages', { From: '+14155550190', Body: 'x' }, 21604],
    ['Messages', { To: '555', From: '+14155550190', Body: 'x' }, 21211],
    ['Messages', { To: '+14155550103', Body: 'x' }, 21603],
    ['Messages', { To: '+14155550103', From: '+14155550190' }, 21602],
    ['Messages', { To: '+14155550103', From: '+14155550190', Body: 'x'.repeat(1601) }, 21617],
    ['Calls', { From: '+14155550190', Twiml: '<Response/>' }, 21201],
    ['Calls', { To: '+14155550103', Twiml: '<Response/>' }, 21213],
    ['Calls', { To: '+14155550103', From: '+14155550190' }, 21205],
  ] as const)('%s %o is refused with Twilio error %i', async (resource, form, code) => {
    const res = await post(resource, form);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code, status: 400 });
  });

  it('refuses JSON bodies: the API is form-encoded', async () => {
    const res = await fetch(`${emulator.url}/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`, {
      method: 'POST',
      headers: { authorization: basic(ACCOUNT_SID, AUTH_TOKEN), 'content-type': 'application/json' },
      body: JSON.stringify({ To: '+14155550103' }),
    });
    expect(res.status).toBe(400);
  });

  it('creates a message (201, snake_case resource) and fetches it back', async () => {
    const res = await post('Messages', { To: '+14155550103', From: '+14155550190', Body: 'hello' });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { sid: string; uri: string };
    expect(created).toMatchObject({
      sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      account_sid: ACCOUNT_SID,
      api_version: '2010-04-01',
      direction: 'outbound-api',
      status: 'queued',
      num_segments: '1',
      date_created: expect.stringMatching(/\+0000$/),
    });
    const fetched = await fetch(`${emulator.url}${created.uri}`, {
      headers: { authorization: basic(ACCOUNT_SID, AUTH_TOKEN) },
    });
    expect(await fetched.json()).toMatchObject({ sid: created.sid, body: 'hello' });
  });
});

describe('Twilio emulator status callbacks', () => {
  it('sends only the call events the request subscribed to (completed by default)', async () => {
    const res = await post('Calls', {
      To: '+14155550103',
      From: '+14155550190',
      Twiml: '<Response><Say>hi</Say></Response>',
      StatusCallback: callbackUrl,
    });
    const { sid } = (await res.json()) as { sid: string };
    expect(await emulator.sendStatusCallback(sid, 'ringing')).toBeNull();
    const done = await emulator.sendStatusCallback(sid, 'completed');
    expect(done?.status).toBe(200);
    expect(hits).toHaveLength(1);
    const params = Object.fromEntries(new URLSearchParams(hits[0]?.body));
    expect(params).toMatchObject({
      CallSid: sid,
      CallStatus: 'completed',
      CallbackSource: 'call-progress-events',
    });
    expect(twilio.validateRequest(AUTH_TOKEN, hits[0]?.signature ?? '', callbackUrl, params)).toBe(true);
  });

  it('plays the whole sequence on its own when autoStatusCallbacks is set', async () => {
    const auto = await startTwilioEmulator({
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      autoStatusCallbacks: true,
    });
    try {
      const res = await fetch(`${auto.url}/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`, {
        method: 'POST',
        headers: {
          authorization: basic(ACCOUNT_SID, AUTH_TOKEN),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams([
          ['To', '+14155550103'],
          ['From', '+14155550190'],
          ['Url', 'https://example.invalid/twiml'],
          ['StatusCallback', callbackUrl],
          ['StatusCallbackEvent', 'initiated'],
          ['StatusCallbackEvent', 'answered'],
          ['StatusCallbackEvent', 'completed'],
        ]),
      });
      expect(res.status).toBe(201);
      const deadline = Date.now() + 5_000;
      while (auto.state.callbacks.length < 3 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(auto.state.callbacks.map((c) => c.params.CallStatus)).toEqual([
        'initiated',
        'in-progress',
        'completed',
      ]);
      expect(auto.state.callbacks.map((c) => c.params.SequenceNumber)).toEqual(['0', '1', '2']);
    } finally {
      await auto.stop();
    }
  });
});

describe('Twilio emulator lists (ListMessage / ListCall, test/contracts/vendor/twilio)', () => {
  const list = (resource: 'Messages' | 'Calls', query: string) =>
    fetch(`${emulator.url}/2010-04-01/Accounts/${ACCOUNT_SID}/${resource}.json?${query}`, {
      headers: { authorization: basic(ACCOUNT_SID, AUTH_TOKEN) },
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('Messages.json filters by To and From, newest first, with the documented envelope', async () => {
    for (const body of ['page one', 'page two']) {
      await post('Messages', { To: '+14155550177', From: '+14155550190', Body: body });
    }
    await post('Messages', { To: '+14155550178', From: '+14155550190', Body: 'someone else' });
    const res = await list('Messages', `To=${encodeURIComponent('+14155550177')}`);
    expect(res.status).toBe(200);
    const messages = res.body.messages as Array<{ body: string; to: string }>;
    expect(messages.map((m) => m.body)).toEqual(['page two', 'page one']);
    const spec = JSON.parse(
      readFileSync(join(__dirname, '../../test/contracts/vendor/twilio/list-operations.json'), 'utf8'),
    );
    expect(Object.keys(res.body).sort()).toEqual(
      spec.paths['/2010-04-01/Accounts/{AccountSid}/Messages.json'].listEnvelope,
    );
  });

  it('pages with PageSize and next_page_uri; DateSent bounds a day', async () => {
    const first = await list('Messages', `From=${encodeURIComponent('+14155550190')}&PageSize=2`);
    expect((first.body.messages as unknown[]).length).toBe(2);
    const next = first.body.next_page_uri as string;
    expect(next).toContain('PageToken=');
    const second = await fetch(`${emulator.url}${next}`, {
      headers: { authorization: basic(ACCOUNT_SID, AUTH_TOKEN) },
    }).then((r) => r.json() as Promise<{ messages: unknown[]; page: number }>);
    expect(second.page).toBe(1);
    expect(second.messages.length).toBeGreaterThanOrEqual(1);
    const today = new Date().toISOString().slice(0, 10);
    const onDay = await list('Messages', `DateSent=${today}&To=${encodeURIComponent('+14155550178')}`);
    expect((onDay.body.messages as unknown[]).length).toBe(1);
    const before = await list('Messages', `DateSent%3C=${today}&To=${encodeURIComponent('+14155550178')}`);
    expect((before.body.messages as unknown[]).length).toBe(0);
    expect((await list('Messages', 'DateSent=yesterday')).status).toBe(400);
    expect((await list('Messages', 'PageSize=1001')).status).toBe(400);
  });

  it('Calls.json filters by To and Status', async () => {
    await post('Calls', {
      To: '+14155550179',
      From: '+14155550190',
      Twiml: '<Response><Say>hi</Say></Response>',
    });
    const queued = await list('Calls', `To=${encodeURIComponent('+14155550179')}&Status=queued`);
    expect((queued.body.calls as Array<{ to: string }>).map((c) => c.to)).toEqual(['+14155550179']);
    const done = await list('Calls', `To=${encodeURIComponent('+14155550179')}&Status=completed`);
    expect(done.body.calls).toEqual([]);
  });
});
