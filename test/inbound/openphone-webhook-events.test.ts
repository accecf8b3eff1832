import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/openphone-webhook';
import { signDelivery } from '../../scripts/simulate-sms';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { type EventEnvelope, eventEnvelope } from '../../shared/src/contracts/events';
import type { EventLedger } from '../../shared/src/ports/event-ledger';
import {
  apiGatewayEvent,
  type InboundBackends,
  parseResult,
  startInboundBackends,
  TEST_WEBHOOK_SECRET,
} from './fixtures';

/**
 * Issue 13 §Quo and issue 12 item 2 through the real webhook function, signed: every vendor example of both
 * webhook generations (test/contracts/vendor/quo/) is accepted and becomes the internal event of its type on
 * the queue; what starts nothing (reactions, types we do not use) is answered 200 and recorded in the event
 * ledger with its reason; "🚨 Water pouring through the ceiling" is a text, and urgent.
 */
let be: InboundBackends;
let ledger: EventLedger;
beforeAll(async () => {
  be = await startInboundBackends();
  const dynamo = makeDynamoClients({ region: 'us-east-1', endpoint: be.dynamoEndpoint });
  ledger = dynamoEventLedger({ doc: dynamo.doc, tableName: be.tableName });
});
afterAll(async () => {
  await be?.stop();
});

const VENDOR = join(__dirname, '../contracts/vendor/quo');
const vendorBody = (file: string, patch: (e: Record<string, unknown>) => void = () => {}) => {
  const event = JSON.parse(readFileSync(join(VENDOR, file), 'utf8')) as Record<string, unknown>;
  event.id = `${event.id as string}_${Math.random().toString(36).slice(2)}`;
  patch(event);
  return JSON.stringify(event);
};
const post = async (rawBody: string, scheme: 'legacy' | 'standard') =>
  parseResult(
    await handler(
      apiGatewayEvent({
        body: rawBody,
        headers: signDelivery({ rawBody, secret: TEST_WEBHOOK_SECRET, scheme }),
      }),
    ),
  );
const queued = async (): Promise<EventEnvelope[]> =>
  (await be.drain()).map((b) => eventEnvelope.parse(JSON.parse(b)));

describe('both webhook generations become one internal event', () => {
  it.each([
    ['v2026-03-30/message.received.json', 'standard', 'sms.received', 'sms:+15550001111'],
    ['legacy/message.received.json', 'legacy', 'sms.received', 'sms:+19876543210'],
    ['legacy/message.received.app-mms.json', 'legacy', 'sms.received', 'sms:+18005550100'],
    ['v2026-03-30/message.delivered.json', 'standard', 'sms.delivered', 'sms:+15550001111'],
    ['legacy/message.delivered.json', 'legacy', 'sms.delivered', 'sms:+19876543210'],
    ['v2026-03-30/call.completed.json', 'standard', 'call.completed', 'sms:+15550000002'],
    ['legacy/call.completed.json', 'legacy', 'call.completed', 'sms:+15555555555'],
    ['v2026-03-30/call.summary.completed.json', 'standard', 'call.summarized', 'sms:+15550000002'],
    ['legacy/call.summary.completed.json', 'legacy', 'call.summarized', expect.stringMatching(/^call:/)],
    ['v2026-03-30/call.transcript.completed.json', 'standard', 'call.transcribed', 'sms:+15550000002'],
    ['legacy/call.transcript.completed.json', 'legacy', 'call.transcribed', expect.stringMatching(/^call:/)],
  ] as const)('%s → 202, one %s keyed %s', async (file, scheme, type, key) => {
    const res = await post(vendorBody(file), scheme);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const events = await queued();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type, key });
    expect(res.body).toMatchObject({ status: 'enqueued', type, eventId: events[0]?.id });
  });

  it('a 2026-03-30 text reads its sender and line from data.context', async () => {
    await post(vendorBody('v2026-03-30/message.received.json'), 'standard');
    const [event] = await queued();
    if (event?.type !== 'sms.received') throw new Error(String(event?.type));
    expect(event.payload).toMatchObject({
      from: '+15550001111',
      to: '+15550002222',
      text: 'hello',
      phoneNumberId: 'PN123',
      conversationId: 'CN123',
      media: [],
    });
  });

  it('media (URL and type) is kept on the queued event', async () => {
    await post(vendorBody('legacy/message.received.app-mms.json'), 'legacy');
    const [event] = await queued();
    if (event?.type !== 'sms.received') throw new Error(String(event?.type));
    expect(event.payload.media).toEqual([
      {
        url: 'https://storage.googleapis.com/opstatics-dev/6c908000e5d64ff5a1d4f3b1b5a9c2de',
        type: 'image/jpeg',
      },
    ]);
  });

  it('an outgoing copy (message.received, direction outgoing) is queued as sms.outgoing', async () => {
    const body = vendorBody('v2026-03-30/message.received.json', (e) => {
      const data = e.data as { resource: Record<string, unknown>; context: Record<string, unknown> };
      data.resource.direction = 'outgoing';
      data.context.senderIdentifier = '+15550002222';
      data.context.recipientIdentifiers = ['+15550001111'];
    });
    expect((await post(body, 'standard')).status).toBe(202);
    const [event] = await queued();
    expect(event).toMatchObject({ type: 'sms.outgoing', key: 'sms:+15550001111' });
  });
});

describe('reactions are recognised by what they are, and every skip is in the ledger', () => {
  const text = (t: string) =>
    vendorBody('v2026-03-30/message.received.json', (e) => {
      (e.data as { resource: Record<string, unknown> }).resource.text = t;
    });

  it('"🚨 Water pouring through the ceiling" is a text: queued, urgent', async () => {
    const res = await post(text('🚨 Water pouring through the ceiling of unit 4'), 'standard');
    expect(res).toMatchObject({ status: 202, body: { status: 'enqueued', urgent: true } });
    const [event] = await queued();
    expect(event?.type).toBe('sms.received');
  });

  it.each(['👍', 'Loved “See you at 5”', '😮 to “The heater is fixed”'])(
    '%j → 200 ignored, no event, a ledger line with the reason',
    async (reaction) => {
      const body = text(reaction);
      const res = await post(body, 'standard');
      expect(res).toMatchObject({
        status: 200,
        body: { status: 'ignored', reason: expect.stringMatching(/^reaction/) },
      });
      expect(await queued()).toEqual([]);
      const entry = await ledger.get(`sms_${(JSON.parse(body) as { id: string }).id}`);
      expect(entry).toMatchObject({ status: 'ignored', type: 'sms.received', key: 'sms:+15550001111' });
      expect(entry?.reason).toMatch(/^reaction/);
    },
  );

  it('a type we do not use (contact.updated) → 200 ignored, recorded in the ledger', async () => {
    const rawBody = JSON.stringify({
      id: `EVcontact${Date.now()}`,
      apiVersion: '2026-03-30',
      createdAt: new Date().toISOString(),
      type: 'contact.updated',
      data: { resource: { id: 'CT1' }, context: {}, links: { quo: null } },
    });
    const res = await post(rawBody, 'standard');
    expect(res).toMatchObject({ status: 200, body: { status: 'ignored' } });
    const entry = await ledger.get(`openphone_${(JSON.parse(rawBody) as { id: string }).id}`);
    expect(entry).toMatchObject({ status: 'ignored', reason: 'Quo event type contact.updated needs no run' });
  });
});
