import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOpenPhoneWebhook } from '../../shared/src/contracts/openphone';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from './openphone';
import { DEMO_LINES } from './seed/demo-team';

/**
 * The emulator as Quo's own artifacts describe it (test/contracts/vendor/quo/): it keeps its workspace across a
 * restart, lists messages the way both API versions allow (so a test needs no id in advance), serves media,
 * delivers calls and outgoing copies in each webhook generation, and refuses what Quo refuses (a `Bearer` key,
 * a missing version header, an 11th request in a second → 429 with the documented envelope).
 */
const KEY = 'op_vendor_key';
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const MARIA = '+14155550111';
const VERSION = { 'Quo-Api-Version': '2026-03-30' };
const VENDOR = join(__dirname, '../../test/contracts/vendor/quo');

let receiver: Server;
let receiverUrl: string;
const bodies: unknown[] = [];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((r) => receiver.close(() => r()));
});

const start = (extra: Partial<Parameters<typeof startOpenPhoneEmulator>[0]> = {}) =>
  startOpenPhoneEmulator({ apiKey: KEY, webhookSecret: SECRET, webhookUrl: receiverUrl, ...extra });
const get = (op: OpenPhoneEmulator, path: string, headers: Record<string, string> = {}) =>
  fetch(`${op.url}${path}`, { headers: { Authorization: KEY, ...headers } });
const send = (op: OpenPhoneEmulator, text: string, to = MARIA) =>
  fetch(`${op.url}/v1/messages`, {
    method: 'POST',
    headers: { Authorization: KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ content: text, from: DEMO_LINES.shared.id, to: [to] }),
  });

describe('state survives a restart from the data folder', () => {
  it('messages sent and received, contacts and media are there after a new start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-store-'));
    try {
      const first = await start({ dataDir: dir, seed: 'empty' });
      expect((await send(first, 'The plumber comes at 3')).status).toBe(202);
      await first.fireIncomingMessage({
        from: MARIA,
        text: 'photo',
        scheme: 'standard',
        media: [{ type: 'image/png' }],
      });
      await first.stop();
      expect(readdirSync(dir)).toContain('openphone.json');

      const second = await start({ dataDir: dir, seed: 'empty' });
      try {
        expect(second.state.sent.map((m) => m.text)).toEqual(['The plumber comes at 3']);
        const list = await get(
          second,
          `/messages?to=${encodeURIComponent(MARIA)}&direction=outgoing`,
          VERSION,
        );
        expect(((await list.json()) as { data: Array<{ text: string }> }).data.map((m) => m.text)).toEqual([
          'The plumber comes at 3',
        ]);
        const photo = second.state.messages.find((m) => m.text === 'photo');
        const media = await fetch(
          photo?.media[0]?.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, second.url) ?? '',
        );
        expect(media.status).toBe(200);
        expect(media.headers.get('content-type')).toBe('image/png');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('listing messages the ways Quo allows', () => {
  let op: OpenPhoneEmulator;
  beforeAll(async () => {
    // Raw bursts of calls; the 10/s limit has its own test below.
    op = await start({ seed: 'empty', rateLimitPerSecond: 0 });
    for (const t of ['one', 'two', 'three']) await send(op, t);
    await send(op, 'to someone else', '+14155550112');
    await op.fireIncomingMessage({ from: MARIA, text: 'hi back', scheme: 'standard' });
  });
  afterAll(() => op.stop());

  it('2026-03-30 GET /messages: workspace-wide, newest first, filtered, cursor-paged', async () => {
    const page1 = (await (await get(op, '/messages?direction=outgoing&limit=2', VERSION)).json()) as {
      data: Array<{ text: string; media: unknown[]; conversationId: string }>;
      nextCursor: string | null;
    };
    expect(page1.data.map((m) => m.text)).toEqual(['to someone else', 'three']);
    expect(page1.data[0]).toHaveProperty('media');
    const page2 = (await (
      await get(op, `/messages?direction=outgoing&limit=2&after=${page1.nextCursor}`, VERSION)
    ).json()) as { data: Array<{ text: string }>; nextCursor: string | null };
    expect(page2.data.map((m) => m.text)).toEqual(['two', 'one']);
    expect(page2.nextCursor).toBeNull();

    const toMaria = (await (
      await get(op, `/messages?to[all]=${encodeURIComponent(MARIA)}`, VERSION)
    ).json()) as {
      data: unknown[];
    };
    expect(toMaria.data).toHaveLength(3);
    const fromMaria = (await (
      await get(op, `/messages?from=${encodeURIComponent(MARIA)}`, VERSION)
    ).json()) as {
      data: Array<{ text: string }>;
    };
    expect(fromMaria.data.map((m) => m.text)).toEqual(['hi back']);
  });

  it('the response has the shape of the documented example', async () => {
    const example = JSON.parse(readFileSync(join(VENDOR, 'api/messages.list.2026-03-30.json'), 'utf8'));
    const ours = (await (await get(op, '/messages?limit=1', VERSION)).json()) as Record<string, unknown>;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(example).sort());
    const [mine] = ours.data as Array<Record<string, unknown>>;
    expect(Object.keys(mine ?? {}).sort()).toEqual(Object.keys(example.data[0]).sort());
  });

  it('refuses a missing version header, an out-of-range limit, a foreign cursor', async () => {
    expect((await get(op, '/messages')).status).toBe(400);
    const bad = await get(op, '/messages?limit=51', VERSION);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ title: 'Bad Request', errors: [{ path: '/query/limit' }] });
    expect((await get(op, '/messages?after=nonsense', VERSION)).status).toBe(400);
  });

  it('v1 GET /v1/messages still needs the conversation scope and has no media field', async () => {
    const res = await get(
      op,
      `/v1/messages?maxResults=10&phoneNumberId=${DEMO_LINES.shared.id}&participants[]=${encodeURIComponent(MARIA)}`,
    );
    const body = (await res.json()) as { data: Array<Record<string, unknown>> };
    expect(body.data).toHaveLength(4);
    expect(body.data[0]).not.toHaveProperty('media');
  });
});

describe('refuses what Quo refuses', () => {
  it('a Bearer-prefixed key is 401', async () => {
    const op = await start({ seed: 'empty' });
    try {
      const res = await fetch(`${op.url}/v1/phone-numbers`, { headers: { Authorization: `Bearer ${KEY}` } });
      expect(res.status).toBe(401);
    } finally {
      await op.stop();
    }
  });

  it('the 11th request in one second is 429 with the error envelope; the next second is open again', async () => {
    let wall = 1_700_000_000_000;
    const op = await start({ seed: 'empty', rateClock: () => wall });
    try {
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await get(op, '/v1/phone-numbers')).status);
      expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      const res = await get(op, '/v1/phone-numbers');
      expect(res.status).toBe(429);
      const body = await res.json();
      const documented = JSON.parse(readFileSync(join(VENDOR, 'api/error-429.json'), 'utf8'));
      for (const k of Object.keys(documented)) expect(body).toHaveProperty(k);
      expect(body.title).toBe('Too Many Requests');
      wall += 1000;
      expect((await get(op, '/v1/phone-numbers')).status).toBe(200);
    } finally {
      await op.stop();
    }
  });
});

describe('calls and outgoing copies in both webhook generations', () => {
  it.each(['legacy', 'standard'] as const)(
    '%s: call.completed, summary and transcript parse',
    async (scheme) => {
      const op = await start({ seed: 'empty' });
      try {
        bodies.length = 0;
        const { callId } = await op.fireCall({
          from: MARIA,
          scheme,
          summary: { summary: ['Leak under the sink'], nextSteps: ['Send a plumber'] },
          transcript: [
            { who: 'caller', text: 'There is a leak' },
            { who: 'member', text: 'We will send someone' },
          ],
        });
        const parsed = bodies.map((b) => parseOpenPhoneWebhook(b));
        expect(parsed.map((p) => p.kind)).toEqual([
          'call.completed',
          'call.summary.completed',
          'call.transcript.completed',
        ]);
        expect(parsed[0]).toMatchObject({ call: { id: callId, participants: [MARIA] } });
        expect(parsed[2]).toMatchObject({
          transcript: { dialogue: [{ speaker: MARIA }, { userId: expect.any(String) }] },
        });
        // The REST API knows the call afterwards.
        expect((await get(op, `/v1/call-summaries/${callId}`)).status).toBe(200);
      } finally {
        await op.stop();
      }
    },
  );

  it('a text a person sent from the Quo app arrives as message.delivered, outgoing', async () => {
    const op = await start({ seed: 'empty' });
    try {
      bodies.length = 0;
      await op.fireAppSentMessage({ to: MARIA, text: 'On my way', scheme: 'standard' });
      expect(parseOpenPhoneWebhook(bodies[0])).toMatchObject({
        kind: 'message.delivered',
        message: { direction: 'outgoing', to: [MARIA], text: 'On my way' },
      });
    } finally {
      await op.stop();
    }
  });
});
