import { afterAll, beforeAll, expect, it } from 'vitest';
import { handler } from '../../functions/openphone-webhook';
import { buildMessageReceived, signDelivery } from '../../scripts/simulate-sms';
import { eventEnvelope } from '../../shared/src/contracts/events';
import {
  apiGatewayEvent,
  type InboundBackends,
  parseResult,
  startInboundBackends,
  TEST_WEBHOOK_SECRET,
} from './fixtures';

/** Regressions: texts with emoji or code points SQS refuses are queued intact; long provider ids stay valid envelopes. */
let be: InboundBackends;
beforeAll(async () => {
  be = await startInboundBackends();
});
afterAll(async () => {
  await be?.stop();
});

const send = async (text: string, opts: { eventId?: string; webhookId?: string } = {}) => {
  const d = buildMessageReceived({
    from: '+14155550111',
    to: '+14155550100',
    text,
    scheme: 'standard',
    ...(opts.eventId ? { eventId: opts.eventId } : {}),
  });
  const headers = signDelivery({
    rawBody: d.rawBody,
    secret: TEST_WEBHOOK_SECRET,
    scheme: 'standard',
    ...(opts.webhookId ? { webhookId: opts.webhookId } : {}),
  });
  return parseResult(await handler(apiGatewayEvent({ body: d.rawBody, headers })));
};

it.each(['Thanks 🙏 see you tomorrow', 'ok\uffff'])(
  'a text containing %j is accepted (202), not a 502',
  async (text) => {
    expect((await send(text)).status).toBe(202);
    expect(await be.drain()).toHaveLength(1);
  },
);

it('whatever the webhook accepts with 202 is an envelope the worker accepts', async () => {
  const a = await send('hi', { eventId: `EV${'a'.repeat(198)}` });
  const b = await send('hi', { webhookId: `msg_${'b'.repeat(240)}` });
  const bodies = await be.drain();
  expect(bodies).toHaveLength([a, b].filter((r) => r.status === 202).length);
  for (const body of bodies) expect(eventEnvelope.safeParse(JSON.parse(body)).success).toBe(true);
});
