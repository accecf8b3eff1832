import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseOpenPhoneWebhook } from '../../shared/src/contracts/openphone';
import { verifyOpenPhoneSignature } from '../../shared/src/domain/openphone-signature';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from './openphone';
import { DEMO_LINES } from './seed/demo-team';

const API_KEY = 'op_emulator_key';
const SECRET = `whsec_${Buffer.from('emulator-webhook-secret-000000000').toString('base64')}`;
const MARIA = '+14155550111';

/** A receiver that does what the real webhook function must: verify the raw body, then parse it. */
let receiver: Server;
let receiverUrl: string;
const received: Array<{ verified: ReturnType<typeof verifyOpenPhoneSignature>; parsed: unknown }> = [];
let emulator: OpenPhoneEmulator;

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const raw = await readAll(req);
    const verified = verifyOpenPhoneSignature({
      rawBody: raw,
      headers: req.headers as Record<string, string>,
      secret: SECRET,
    });
    const parsed = verified.ok ? parseOpenPhoneWebhook(JSON.parse(raw.toString('utf8'))) : null;
    received.push({ verified, parsed });
    res.writeHead(verified.ok ? 200 : 401).end(verified.ok ? 'ok' : verified.reason);
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/openphone`;
  emulator = await startOpenPhoneEmulator({
    apiKey: API_KEY,
    webhookSecret: SECRET,
    webhookUrl: receiverUrl,
    // These tests call the API in quick raw bursts; the 10/s limit has its own test (openphone-vendor.test.ts).
    rateLimitPerSecond: 0,
  });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  received.length = 0;
  emulator.state.clearScripted();
});

const api = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const { key = API_KEY, ...rest } = init;
  return fetch(`${emulator.url}${path}`, {
    ...rest,
    headers: { ...(key === null ? {} : { authorization: key }), 'content-type': 'application/json' },
  });
};

describe('OpenPhone emulator API', () => {
  it('requires the raw API key in Authorization (no Bearer)', async () => {
    expect((await api('/v1/phone-numbers', { key: null })).status).toBe(401);
    expect((await api('/v1/phone-numbers', { key: `Bearer ${API_KEY}` })).status).toBe(401);
    const ok = await api('/v1/phone-numbers');
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { data: Array<{ id: string; users: unknown[] }> };
    expect(body.data.map((l) => l.id)).toEqual([DEMO_LINES.shared.id, DEMO_LINES.assistant.id]);
  });

  it('answers errors in Quo’s documented shape', async () => {
    const res = await api('/v1/contacts/nobody');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      status: 404,
      title: 'Not Found',
      docs: 'https://openphone.com/docs',
    });
  });

  it('validates a send and answers 202 with the created message', async () => {
    const bad = await api('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({ content: ' ', from: 'x', to: [] }),
    });
    expect(bad.status).toBe(400);
    const errors = ((await bad.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    expect(errors).toEqual(['/content', '/from', '/to']);

    const foreign = await api('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({ content: 'hi', from: 'PNnotours', to: [MARIA] }),
    });
    expect(foreign.status).toBe(403);

    const ok = await api('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({ content: 'hello Maria', from: DEMO_LINES.shared.id, to: [MARIA] }),
    });
    expect(ok.status).toBe(202);
    const { data } = (await ok.json()) as { data: { id: string; status: string; from: string } };
    expect(data).toMatchObject({ status: 'queued', from: DEMO_LINES.shared.number });
    expect(emulator.state.sent.at(-1)).toMatchObject({
      id: data.id,
      text: 'hello Maria',
      status: 'delivered',
    });
  });

  it('requires maxResults and the conversation scope on lists, as Quo does', async () => {
    expect((await api('/v1/contacts')).status).toBe(400);
    expect((await api('/v1/contacts?maxResults=51')).status).toBe(400);
    expect((await api(`/v1/messages?maxResults=10&phoneNumberId=${DEMO_LINES.shared.id}`)).status).toBe(400);
    const twoParticipants = await api(
      `/v1/calls?maxResults=10&phoneNumberId=${DEMO_LINES.shared.id}&participants=${encodeURIComponent(MARIA)}&participants=%2B14155550112`,
    );
    expect(twoParticipants.status).toBe(400);
    expect(await twoParticipants.json()).toMatchObject({ title: 'Too Many Participants' });
  });

  it('accepts participants both as participants[] and as repeated participants', async () => {
    const q = (name: string) =>
      api(
        `/v1/messages?maxResults=10&phoneNumberId=${DEMO_LINES.shared.id}&${name}=${encodeURIComponent(MARIA)}`,
      ).then((r) => r.json() as Promise<{ data: unknown[] }>);
    const [a, b] = await Promise.all([q('participants[]'), q('participants')]);
    expect(a.data.length).toBeGreaterThanOrEqual(2);
    expect(b.data).toEqual(a.data);
  });

  it('scripted failures apply to the next matching requests only', async () => {
    emulator.state.failNext('/v1/calls/*', 503, { times: 2 });
    expect((await api('/v1/calls/ACcall0001maria')).status).toBe(503);
    expect((await api('/v1/calls/ACcall0002lead')).status).toBe(503);
    expect((await api('/v1/calls/ACcall0001maria')).status).toBe(200);
  });
});

describe('OpenPhone emulator webhooks', () => {
  it.each(['legacy', 'standard'] as const)(
    'fires a %s-signed message.received the receiver can verify',
    async (scheme) => {
      const delivery = await emulator.fireIncomingMessage({
        from: MARIA,
        text: 'The heater is out again',
        scheme,
      });
      expect(delivery.status).toBe(200);
      expect(received).toHaveLength(1);
      const [{ verified, parsed }] = received as [(typeof received)[number]];
      expect(verified).toMatchObject({ ok: true, scheme });
      expect(parsed).toMatchObject({
        kind: 'message.received',
        generation: scheme === 'legacy' ? 'legacy' : '2026-03-30',
        message: { from: MARIA, to: [DEMO_LINES.shared.number], text: 'The heater is out again' },
      });
      // The generation's real body: 2026-03-30 carries the parties in data.context, never data.object.
      const data = JSON.parse(delivery.rawBody).data;
      if (scheme === 'standard') {
        expect(data).toMatchObject({
          resource: { text: 'The heater is out again' },
          context: { senderIdentifier: MARIA },
        });
        expect(data).not.toHaveProperty('object');
      } else expect(data).toHaveProperty('object');
      if (scheme === 'standard') expect(verified).toMatchObject({ deliveryId: delivery.webhookId });
      else expect(verified).toMatchObject({ deliveryId: delivery.eventId });

      const messages = await api(
        `/v1/messages?maxResults=1&phoneNumberId=${DEMO_LINES.shared.id}&participants[]=${encodeURIComponent(MARIA)}`,
      ).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>);
      expect(messages.data[0]?.id).toBe(delivery.messageId);
    },
  );

  it('can send the text under `body`, to the assistant line', async () => {
    await emulator.fireIncomingMessage({
      from: '+14155550101',
      to: DEMO_LINES.assistant.number,
      text: 'what is on today?',
      scheme: 'legacy',
      textField: 'body',
    });
    expect(JSON.parse(emulator.state.deliveries.at(-1)?.rawBody ?? '{}').data.object).toHaveProperty('body');
    expect(received[0]?.parsed).toMatchObject({ message: { text: 'what is on today?' } });
  });

  it('fires any other event type in the same signed envelope', async () => {
    const delivery = await emulator.fireWebhook({
      type: 'contact.updated',
      scheme: 'standard',
      object: { id: 'CT1', firstName: 'Maria' },
    });
    expect(delivery.status).toBe(200);
    expect(received[0]?.parsed).toMatchObject({
      kind: 'other',
      eventId: delivery.eventId,
      vendorType: 'contact.updated',
    });
  });

  it('redelivers like a Quo retry: same ids, fresh valid signature', async () => {
    const first = await emulator.fireIncomingMessage({ from: MARIA, text: 'retry me', scheme: 'standard' });
    const again = await emulator.redeliver(first);
    expect(again).toMatchObject({
      status: 200,
      webhookId: first.webhookId,
      eventId: first.eventId,
      rawBody: first.rawBody,
    });
    expect(received.map((r) => r.verified)).toEqual([
      expect.objectContaining({ ok: true, deliveryId: first.webhookId }),
      expect.objectContaining({ ok: true, deliveryId: first.webhookId }),
    ]);
  });

  it('records what the receiver answered when it rejects a delivery', async () => {
    const other = await startOpenPhoneEmulator({
      apiKey: API_KEY,
      webhookSecret: Buffer.from('a-different-secret').toString('base64'),
      webhookUrl: receiverUrl,
      seed: 'empty',
    });
    try {
      const delivery = await other.fireIncomingMessage({ from: MARIA, text: 'forged', scheme: 'legacy' });
      expect(delivery).toMatchObject({ status: 401, responseText: 'bad_signature' });
      expect(other.state.contacts.size).toBe(0);
    } finally {
      await other.stop();
    }
  });
});

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
