import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTwilioEmulator, type TwilioEmulator } from '../../../scripts/emulators/twilio';
import { ValidationError } from '../errors';
import {
  createTwilioPager,
  type OnCallPager,
  pageTwiml,
  parseTwilioStatusCallback,
  TwilioApiError,
  type TwilioPagerOptions,
  twilioFormParams,
  verifyTwilioStatusCallback,
} from './twilio-pager';

const ACCOUNT_SID = `AC${'a1'.repeat(16)}`;
const AUTH_TOKEN = 'twilio-test-auth-token-0123456789';
const FROM = '+14155550190';
const JO = '+14155550103';

/** Stands in for the status-callback route: records the raw form body and the signature header. */
let receiver: Server;
let callbackUrl: string;
const callbacks: Array<{ url: string; signature: string | undefined; body: string }> = [];
let emulator: TwilioEmulator;
let pager: OnCallPager;

const makePager = (overrides: Partial<TwilioPagerOptions> = {}) =>
  createTwilioPager({
    accountSid: ACCOUNT_SID,
    authToken: AUTH_TOKEN,
    fromNumber: FROM,
    apiBase: emulator.url,
    statusCallbackUrl: callbackUrl,
    ...overrides,
  });

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    callbacks.push({
      url: req.url ?? '',
      signature: req.headers['x-twilio-signature'] as string | undefined,
      body: await readAll(req),
    });
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/twilio-status?team=oak`;
  emulator = await startTwilioEmulator({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN });
  pager = makePager();
});
afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  callbacks.length = 0;
  emulator.state.requests.length = 0;
  emulator.state.clearScripted();
});

describe('createTwilioPager().page', () => {
  it('texts and calls the on-call person once each, with the requests the SDK would send', async () => {
    const text = 'URGENT: Maria Lopez (12 Oak St #2) reports water flooding the kitchen.';
    const result = await pager.page({ to: '(415) 555-0103', text });

    expect(result.sms).toMatchObject({ ok: true, status: 'queued' });
    expect(result.voice).toMatchObject({ ok: true, status: 'queued' });
    const sms = emulator.state.messages.at(-1);
    const call = emulator.state.calls.at(-1);
    expect(result.sms?.ok && result.sms.sid).toBe(sms?.sid);
    expect(result.voice?.ok && result.voice.sid).toBe(call?.sid);
    expect(sms).toMatchObject({ to: JO, from: FROM, body: text, statusCallback: callbackUrl });
    expect(call).toMatchObject({ to: JO, from: FROM, statusCallback: callbackUrl });
    expect(call?.says).toEqual([`Urgent page from Switchboard. ${text}`, `Again: ${text}`]);
    expect(call?.statusCallbackEvents).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(emulator.state.requests.map((r) => r.status)).toEqual([201, 201]);
  });

  it('can page by SMS only, with no callbacks configured', async () => {
    const calls = emulator.state.calls.length;
    const result = await makePager({ statusCallbackUrl: undefined }).page({
      to: JO,
      text: 'Gas smell',
      channels: ['sms'],
    });
    expect(result).toEqual({ sms: expect.objectContaining({ ok: true }) });
    expect(emulator.state.calls.length).toBe(calls);
    expect(emulator.state.messages.at(-1)?.statusCallback).toBeNull();
  });

  it('refuses a bad number or an empty text before calling Twilio', async () => {
    await expect(pager.page({ to: '12', text: 'x' })).rejects.toBeInstanceOf(ValidationError);
    await expect(pager.page({ to: JO, text: '  ' })).rejects.toBeInstanceOf(ValidationError);
    expect(emulator.state.requests).toHaveLength(0);
  });

  it('wrong credentials fail both channels with a non-retryable typed error', async () => {
    const result = await makePager({ authToken: 'wrong' }).page({ to: JO, text: 'Fire alarm' });
    for (const channel of [result.sms, result.voice]) {
      expect(channel).toMatchObject({ ok: false });
      if (channel?.ok !== false) continue;
      expect(channel.error).toBeInstanceOf(TwilioApiError);
      expect(channel.error).toMatchObject({
        code: 'twilio_unauthorized',
        retryable: false,
        twilioCode: 20003,
      });
    }
  });

  it('reports each channel on its own: the SMS went out although the call failed (no retry)', async () => {
    emulator.state.failNext(`/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`, 503);
    const result = await pager.page({ to: JO, text: 'No heat at 48 Elm Ave' });
    expect(result.sms).toMatchObject({ ok: true });
    expect(result.voice).toMatchObject({
      ok: false,
      error: { code: 'twilio_unavailable', retryable: true, outcomeUnknown: true, httpStatus: 503 },
    });
    expect(emulator.state.requests.filter((r) => r.path.endsWith('/Calls.json'))).toHaveLength(1);
  });

  it('carries Twilio’s own error code when it refuses a page', async () => {
    emulator.state.failNext(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`, 400, {
      code: 21610,
      message: 'Attempt to send to unsubscribed recipient',
    });
    const result = await pager.page({ to: JO, text: 'Break-in at 7 Birch Rd', channels: ['sms'] });
    expect(result.sms).toMatchObject({
      ok: false,
      error: { code: 'twilio_rejected', twilioCode: 21610, retryable: false },
    });
    expect(result.sms?.ok === false && result.sms.error.message).toContain('unsubscribed recipient');
  });

  it('an unreachable API is retryable with an unknown outcome', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const result = await makePager({ apiBase: `http://127.0.0.1:${port}` }).page({
      to: JO,
      text: 'x',
      channels: ['sms'],
    });
    expect(result.sms).toMatchObject({
      ok: false,
      error: { code: 'twilio_unreachable', outcomeUnknown: true },
    });
  });
});

describe('pageTwiml', () => {
  it('reads the alert twice and escapes markup in it', () => {
    const xml = pageTwiml('Temp < 50F & falling');
    expect(xml).toContain(
      '<Say>Urgent page from Switchboard. Temp &lt; 50F &amp; falling</Say><Pause length="1"/>',
    );
    expect(xml.match(/<Say>/g)).toHaveLength(2);
  });

  it('shortens very long alerts for the voice call', () => {
    const xml = pageTwiml('a'.repeat(2000));
    expect(xml.length).toBeLessThan(1200);
  });
});

describe('status callbacks', () => {
  it('a callback signed by Twilio’s helper verifies with validateRequest and parses (message)', async () => {
    const result = await pager.page({ to: JO, text: 'Smoke in the basement', channels: ['sms'] });
    const sid = result.sms?.ok ? result.sms.sid : '';
    const delivery = await emulator.sendStatusCallback(sid, 'delivered');
    expect(delivery?.status).toBe(204);

    const [cb] = callbacks;
    const params = twilioFormParams(cb?.body ?? '');
    expect(cb?.url).toBe('/webhooks/twilio-status?team=oak');
    expect(
      verifyTwilioStatusCallback({
        authToken: AUTH_TOKEN,
        signature: cb?.signature,
        url: callbackUrl,
        params,
      }),
    ).toBe(true);
    expect(parseTwilioStatusCallback(params)).toMatchObject({
      kind: 'message',
      sid,
      status: 'delivered',
      to: JO,
    });
  });

  it('verifies and parses a call’s completed callback with its duration', async () => {
    const result = await pager.page({ to: JO, text: 'Burst pipe', channels: ['voice'] });
    const sid = result.voice?.ok ? result.voice.sid : '';
    await emulator.sendStatusCallback(sid, 'completed');
    const params = twilioFormParams(callbacks[0]?.body ?? '');
    expect(
      verifyTwilioStatusCallback({
        authToken: AUTH_TOKEN,
        signature: callbacks[0]?.signature,
        url: callbackUrl,
        params,
      }),
    ).toBe(true);
    expect(parseTwilioStatusCallback(params)).toMatchObject({
      kind: 'call',
      sid,
      status: 'completed',
      durationSeconds: 12,
    });
  });

  it('rejects a tampered body, the wrong token, the wrong URL and a missing signature', async () => {
    const result = await pager.page({ to: JO, text: 'Flood', channels: ['sms'] });
    await emulator.sendStatusCallback(result.sms?.ok ? result.sms.sid : '', 'undelivered', {
      ErrorCode: '30003',
    });
    const cb = callbacks[0];
    const params = twilioFormParams(cb?.body ?? '');
    const verify = (over: Partial<Parameters<typeof verifyTwilioStatusCallback>[0]>) =>
      verifyTwilioStatusCallback({
        authToken: AUTH_TOKEN,
        signature: cb?.signature,
        url: callbackUrl,
        params,
        ...over,
      });

    expect(verify({})).toBe(true);
    expect(parseTwilioStatusCallback(params).errorCode).toBe('30003');
    expect(verify({ params: { ...params, MessageStatus: 'delivered' } })).toBe(false);
    expect(verify({ authToken: 'another-token' })).toBe(false);
    expect(verify({ url: callbackUrl.replace('team=oak', 'team=elm') })).toBe(false);
    expect(verify({ signature: undefined })).toBe(false);
  });

  it('signs the public URL while delivering through a local origin (statusCallbackBase)', async () => {
    const publicUrl = 'https://switchboard.example/webhooks/twilio-status';
    const tunnel = await startTwilioEmulator({
      accountSid: ACCOUNT_SID,
      authToken: AUTH_TOKEN,
      statusCallbackBase: new URL(callbackUrl).origin,
    });
    try {
      const result = await makePager({ apiBase: tunnel.url, statusCallbackUrl: publicUrl }).page({
        to: JO,
        text: 'CO alarm',
        channels: ['sms'],
      });
      await tunnel.sendStatusCallback(result.sms?.ok ? result.sms.sid : '', 'sent');
      const params = twilioFormParams(callbacks[0]?.body ?? '');
      const signature = callbacks[0]?.signature;
      expect(verifyTwilioStatusCallback({ authToken: AUTH_TOKEN, signature, url: publicUrl, params })).toBe(
        true,
      );
      expect(verifyTwilioStatusCallback({ authToken: AUTH_TOKEN, signature, url: callbackUrl, params })).toBe(
        false,
      );
    } finally {
      await tunnel.stop();
    }
  });

  it.each([
    ['no sid at all', { AccountSid: ACCOUNT_SID, MessageStatus: 'sent', To: JO, From: FROM }, /MessageSid/],
    [
      'a malformed call sid',
      { AccountSid: ACCOUNT_SID, CallSid: 'CA1', CallStatus: 'ringing', To: JO, From: FROM },
      /CallSid/,
    ],
    [
      'a non-numeric duration',
      {
        AccountSid: ACCOUNT_SID,
        CallSid: `CA${'b2'.repeat(16)}`,
        CallStatus: 'completed',
        To: JO,
        From: FROM,
        CallDuration: 'long',
      },
      /CallDuration/,
    ],
  ])('parseTwilioStatusCallback rejects %s', (_name, params, field) => {
    expect(() => parseTwilioStatusCallback(params)).toThrow(ValidationError);
    expect(() => parseTwilioStatusCallback(params)).toThrow(field);
  });
});

function readAll(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
