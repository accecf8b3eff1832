import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
