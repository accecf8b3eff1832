import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { type OpenPhoneEmulator, startOpenPhoneEmulator } from './openphone';
import { startTwilioEmulator, type TwilioEmulator } from './twilio';

/**
 * The two list endpoints `npm run doctor` reads, checked against the vendor artifacts they were built from:
 * Quo's `GET /v1/webhooks` (listWebhooks_v1) and Twilio's `IncomingPhoneNumbers.json` (ListIncomingPhoneNumber).
 */
const vendor = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../test/contracts/vendor/${path}`, import.meta.url), 'utf8'));

/** listWebhooks_v1's item, every property required as the OpenAPI schema says. */
const quoWebhook = z.strictObject({
  id: z.string().regex(/^WH/),
  userId: z.string().regex(/^US/),
  orgId: z.string().regex(/^OR/),
  label: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  url: z.url(),
  key: z.string(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  deletedAt: z.iso.datetime().nullable(),
  events: z.array(z.string()),
  resourceIds: z.union([z.array(z.string().regex(/^PN/)), z.array(z.literal('*'))]),
});
const quoList = z.strictObject({ data: z.array(quoWebhook) });

describe('Quo GET /v1/webhooks', () => {
  let op: OpenPhoneEmulator;
  beforeAll(async () => {
    op = await startOpenPhoneEmulator({
      apiKey: 'key',
      webhookSecret: 'c2VjcmV0',
      webhookUrl: 'https://app.example/webhooks/openphone',
    });
  });
  afterAll(() => op?.stop());
  const list = (query = '') => fetch(`${op.url}/v1/webhooks${query}`, { headers: { authorization: 'key' } });

  test('the documented shape parses with the schema, and so does the emulator’s answer', async () => {
    expect(quoList.safeParse(vendor('quo/api/webhooks.list.v1.json')).success).toBe(true);
    const res = await list();
    expect(res.status).toBe(200);
    const body = quoList.parse(await res.json());
    expect(body.data).toEqual([
      expect.objectContaining({
        url: 'https://app.example/webhooks/openphone',
        status: 'enabled',
        events: ['message.received', 'message.delivered'],
      }),
    ]);
  });

  test('refuses what Quo refuses: a bad userId pattern (400), a Bearer key (401)', async () => {
    expect((await list('?userId=bob')).status).toBe(400);
    const bearer = await fetch(`${op.url}/v1/webhooks`, { headers: { authorization: 'Bearer key' } });
    expect(bearer.status).toBe(401);
  });

  test('another user’s webhooks are not the owner’s', async () => {
    const other = {
      ...quoWebhook.parse(vendor('quo/api/webhooks.list.v1.json').data[0]),
      userId: 'USsomeoneelse',
    };
    op.state.webhooks = [other];
    try {
      expect(quoList.parse(await (await list()).json()).data).toEqual([]);
      expect(quoList.parse(await (await list('?userId=USsomeoneelse')).json()).data).toEqual([other]);
    } finally {
      op.state.webhooks = undefined;
    }
  });
});

/** The 2026-03-30 list's item, as the reference's example shows it: a pinned apiVersion and no `key`. */
const quoDatedWebhook = z.strictObject({
  id: z.string().min(1),
  orgId: z.string().regex(/^OR/),
  label: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']),
  url: z.url(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  events: z.array(z.string()),
  resourceIds: z.array(z.string()),
  apiVersion: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
});
const quoDatedList = z.strictObject({ data: z.array(quoDatedWebhook) });

describe('Quo GET /webhooks (2026-03-30)', () => {
  let op: OpenPhoneEmulator;
  beforeAll(async () => {
    op = await startOpenPhoneEmulator({
      apiKey: 'key',
      webhookUrl: 'https://app.example/webhooks/openphone',
    });
  });
  afterAll(() => op?.stop());
  const list = (headers: Record<string, string> = { 'x-quo-api-version': '2026-03-30' }) =>
    fetch(`${op.url}/webhooks`, { headers: { authorization: 'key', ...headers } });

  test('the documented example parses; the emulator lists only the beta webhooks, never the legacy one', async () => {
    const doc = quoDatedList.parse(vendor('quo/api/webhooks.list.2026-03-30.json'));
    expect(quoDatedList.parse(await (await list()).json()).data).toEqual([]);
    op.state.datedWebhooks = doc.data.map((w) => ({ ...w }));
    try {
      expect(quoDatedList.parse(await (await list()).json())).toEqual(doc);
    } finally {
      op.state.datedWebhooks = [];
    }
  });

  test('refuses what Quo refuses: no version header (400), a Bearer key (401)', async () => {
    expect((await list({})).status).toBe(400);
    const bearer = await fetch(`${op.url}/webhooks`, {
      headers: { authorization: 'Bearer key', 'x-quo-api-version': '2026-03-30' },
    });
    expect(bearer.status).toBe(401);
  });
});

describe('Twilio IncomingPhoneNumbers.json', () => {
  let tw: TwilioEmulator;
  const sid = `AC${'0'.repeat(32)}`;
  beforeAll(async () => {
    tw = await startTwilioEmulator({
      accountSid: sid,
      authToken: 'token',
      incomingNumbers: ['+14155550190', '+14155550191'],
    });
  });
  afterAll(() => tw?.stop());
  const auth = { authorization: `Basic ${Buffer.from(`${sid}:token`).toString('base64')}` };
  const list = (query = '') =>
    fetch(`${tw.url}/2010-04-01/Accounts/${sid}/IncomingPhoneNumbers.json${query}`, { headers: auth });

  test('the envelope and every item property the OpenAPI lists, with PhoneNumber filtering (partial, * for a digit)', async () => {
    const spec = vendor('twilio/incoming-phone-numbers.json');
    const all = (await (await list()).json()) as Record<string, unknown> & {
      incoming_phone_numbers: Array<Record<string, unknown>>;
    };
    expect(Object.keys(all).sort()).toEqual([...spec.listEnvelope].sort());
    expect(all.incoming_phone_numbers).toHaveLength(2);
    for (const item of all.incoming_phone_numbers)
      expect(Object.keys(item).sort()).toEqual(Object.keys(spec.item.properties).sort());
    const one = (await (await list('?PhoneNumber=%2B14155550190')).json()) as typeof all;
    expect(one.incoming_phone_numbers.map((n) => n.phone_number)).toEqual(['+14155550190']);
    const wild = (await (await list('?PhoneNumber=555019*')).json()) as typeof all;
    expect(wild.incoming_phone_numbers).toHaveLength(2);
    const none = (await (await list('?PhoneNumber=%2B19995550000')).json()) as typeof all;
    expect(none.incoming_phone_numbers).toEqual([]);
  });

  test('wrong credentials are 401 with Twilio’s error body', async () => {
    const res = await fetch(`${tw.url}/2010-04-01/Accounts/${sid}/IncomingPhoneNumbers.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${sid}:wrong`).toString('base64')}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 20003, status: 401 });
  });
});
