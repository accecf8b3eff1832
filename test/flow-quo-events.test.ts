import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';

/**
 * On the local stack (`npm start`'s parts): a completed call with its summary and transcript, and a text a
 * person sent from the Quo app, each delivered by the emulator in a real webhook body, reach the worker as
 * events of their own types and end in the event ledger (recorded: later issues act on them); a reaction ends
 * there too, as ignored with its reason. Nothing is silently dropped.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { COOLDOWN_SECONDS: '1' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function ledgerLine(eventId: string) {
  const core = await getCore('test-quo-events');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const entry = await core.ledger.get(eventId);
    if (entry && entry.status !== 'received') return entry;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ledger line for ${eventId}`);
}

test('calls, outgoing copies and reactions all end in the event ledger', async () => {
  const op = stack.emulators!.openphone;
  const call = await op.fireCall({
    from: '+14155550111',
    scheme: 'standard',
    summary: { summary: ['Leak under the sink'], nextSteps: ['Send a plumber'] },
    transcript: [{ who: 'caller', text: 'There is a leak under my sink' }],
  });
  expect(call.deliveries.map((d) => d.status)).toEqual([202, 202, 202]);
  const [completed, summary, transcript] = call.deliveries;
  expect(await ledgerLine(`call_${completed?.eventId}`)).toMatchObject({
    status: 'processed',
    type: 'call.completed',
    key: 'sms:+14155550111',
  });
  expect(await ledgerLine(`callsum_${summary?.eventId}`)).toMatchObject({
    status: 'processed',
    type: 'call.summarized',
  });
  expect(await ledgerLine(`calltx_${transcript?.eventId}`)).toMatchObject({
    status: 'processed',
    type: 'call.transcribed',
  });

  const copy = await op.fireAppSentMessage({ to: '+14155550111', text: 'On my way', scheme: 'legacy' });
  expect(copy.status).toBe(202);
  expect(await ledgerLine(`smsdlv_${copy.eventId}`)).toMatchObject({
    status: 'processed',
    type: 'sms.delivered',
  });

  const reaction = await op.fireIncomingMessage({ from: '+14155550111', text: '👍', scheme: 'standard' });
  expect(reaction.status).toBe(200);
  expect(await ledgerLine(`sms_${reaction.eventId}`)).toMatchObject({
    status: 'ignored',
    reason: expect.stringMatching(/^reaction/),
  });
}, 120_000);
