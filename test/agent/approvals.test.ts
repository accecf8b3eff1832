import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import { ConflictError, ValidationError } from '../../shared/src/errors';
import { runEventGroup } from '../../shared/src/use-cases/run-event-group';
import {
  ALEX,
  createWorld,
  MARIA,
  SAM,
  type Servers,
  SHARED_LINE,
  smsEvent,
  startServers,
  type World,
} from './harness';

/**
 * Approval cards end to end on DynamoDB Local, fauxqs and the OpenPhone emulator (SPEC §3.4, §6.1, §6.2):
 * a run pauses on its card and resumes when a decision arrives; an edit is re-validated by the tool's schema;
 * arguments changed behind the approval's back are refused; two people (or two workers) at once send once.
 */
let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});
beforeEach(async () => {
  world = await createWorld(servers);
});
afterEach(async () => {
  await world?.stop();
});

async function draftForMaria(): Promise<PendingAction> {
  await world.deliver(smsEvent(MARIA, 'The front door lock is sticking again', servers.clock()));
  const [draft, ...rest] = await world.actionsFor(`sms:${MARIA}`);
  expect(rest).toEqual([]);
  expect(draft).toMatchObject({ tool: 'send_message', status: 'PENDING' });
  return draft!;
}

test('the run pauses on the card and resumes when the decision arrives', async () => {
  const draft = await draftForMaria();
  const paused = await world.core.runs.get(draft.conversationId, draft.runId);
  expect(paused).toMatchObject({ status: 'awaiting_approval', awaitingActionId: draft.id });
  expect((await world.core.conversations.get(draft.conversationId))?.pendingCount).toBe(1);

  await world.decide(draft, 'approve');
  // Only the decision is recorded by the API; the send happens in the worker when the run resumes.
  expect(world.sentTo(MARIA)).toEqual([]);
  const events = await world.work();
  expect(events.map((e) => e.type)).toEqual(['approval.decided', 'notify']);
  expect(world.sentTo(MARIA)).toEqual([{ text: draft.args.text, from: SHARED_LINE }]);

  const run = await world.core.runs.get(draft.conversationId, draft.runId);
  expect(run).toMatchObject({ status: 'completed', outcome: 'responded' });
  expect((await world.core.conversations.get(draft.conversationId))?.pendingCount).toBe(0);
  const audit = (await world.core.audit.list(draft.conversationId)).map((e) => [e.type, e.actor]);
  expect(audit).toEqual([
    ['action.proposed', 'planner'],
    ['approval.approved', SAM.email],
    ['action.executed', 'switchboard'],
    ['run.response', 'switchboard'],
  ]);
});

describe('edits', () => {
  test('an edit is re-validated against the tool schema: an invalid one is refused with the reason', async () => {
    const draft = await draftForMaria();
    for (const [editedArgs, reason] of [
      [{ ...draft.args, text: '' }, /text: Too small/],
      [{ ...draft.args, text: 'x'.repeat(1700) }, /text: Too big/],
      [{ ...draft.args, to: 'me' }, /to: Too small/],
    ] as const) {
      const err = await world.decide(draft, 'approve', { editedArgs }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toMatch(reason);
    }
    expect(await world.core.actions.get(draft.conversationId, draft.id)).toMatchObject({
      status: 'PENDING',
      args: draft.args,
      argsHash: draft.argsHash,
    });
    await world.work();
    expect(world.sentTo(MARIA)).toEqual([]);
  });

  test('a valid edit is what is sent, and the card records from/to', async () => {
    const draft = await draftForMaria();
    const text = 'Hi Maria, Bob from Martinez Plumbing will look at the lock tomorrow at 9.';
    await world.decide(draft, 'approve', { editedArgs: { ...draft.args, text: `  ${text}  ` } });
    await world.work();
    expect(world.sentTo(MARIA).map((m) => m.text)).toEqual([text]);
    const done = await world.core.actions.get(draft.conversationId, draft.id);
    expect(done?.edit).toEqual({ from: draft.args, to: { ...draft.args, text } });
  });

  test('arguments changed behind the approval (not through a decision) are refused and never sent', async () => {
    const draft = await draftForMaria();
    await world.decide(draft, 'approve');
    // Something writes the stored arguments after the approval — the hash no longer matches.
    await world.core.table.doc.send(
      new UpdateCommand({
        TableName: world.core.table.tableName,
        Key: { pk: `CONV#${draft.conversationId}`, sk: `ACTION#${draft.id}` },
        UpdateExpression: 'SET args.#t = :t',
        ExpressionAttributeNames: { '#t': 'text' },
        ExpressionAttributeValues: { ':t': 'Send your bank details to this number' },
      }),
    );
    await world.work();
    expect(world.sentTo(MARIA)).toEqual([]);
    expect(await world.core.actions.get(draft.conversationId, draft.id)).toMatchObject({
      status: 'FAILED',
      error: 'refused: the arguments differ from what was approved',
    });
  });
});

test('a denial tells the agent why, and nothing is sent', async () => {
  const draft = await draftForMaria();
  await world.decide(draft, 'deny', { reason: 'Sam is going over there in person' });
  await world.work();
  expect(world.sentTo(MARIA)).toEqual([]);
  const last = (await world.core.conversations.listMessages(draft.conversationId)).at(-1);
  expect(last?.text).toMatch(
    /did not send the acknowledgement \(reason: Sam is going over there in person\)/,
  );
});

describe('at the same moment', () => {
  test('two people approve: one wins, the other is told, and the text is sent once', async () => {
    const draft = await draftForMaria();
    const results = await Promise.allSettled([
      world.decide(draft, 'approve', { user: { id: SAM.id, email: SAM.email } }),
      world.decide(draft, 'approve', { user: { id: ALEX.id, email: ALEX.email } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(lost?.reason).toBeInstanceOf(ConflictError);
    expect(lost?.reason.message).toBe('This card was already decided (approved)');
    const events = await world.work();
    expect(events.filter((e) => e.type === 'approval.decided')).toHaveLength(1);
    expect(world.sentTo(MARIA)).toHaveLength(1);
  });

  test('one approves while another denies: exactly one decision holds', async () => {
    const draft = await draftForMaria();
    await Promise.allSettled([
      world.decide(draft, 'approve', { user: { id: SAM.id, email: SAM.email } }),
      world.decide(draft, 'deny', { user: { id: ALEX.id, email: ALEX.email }, reason: 'no' }),
    ]);
    await world.work();
    const final = await world.core.actions.get(draft.conversationId, draft.id);
    expect(world.sentTo(MARIA)).toHaveLength(final?.status === 'EXECUTED' ? 1 : 0);
    expect(['EXECUTED', 'DENIED']).toContain(final?.status);
  });

  test('the decision delivered to two workers at once (SQS at-least-once): sent once', async () => {
    const draft = await draftForMaria();
    await world.decide(draft, 'approve');
    const decided: EventEnvelope = {
      id: 'ev_dup_decision',
      type: 'approval.decided',
      correlationId: `conv:${draft.conversationId}`,
      key: `conv:${draft.conversationId}`,
      occurredAt: servers.clock().toISOString(),
      payload: { conversationId: draft.conversationId, actionId: draft.id, runId: draft.runId },
    };
    const results = await Promise.allSettled([
      runEventGroup(world.deps, [decided]),
      runEventGroup(world.deps, [decided]),
      runEventGroup(world.deps, [decided]),
    ]);
    // A worker that finds the send in flight, or whose turn commit lost to the worker that sent, asks to be
    // retried later; none sends a second time.
    for (const r of results)
      if (r.status === 'rejected') {
        expect(r.reason).toMatchObject({ retryable: true });
        expect(['action_in_flight', 'conflict_retry']).toContain(r.reason.code);
      }
    expect(world.sentTo(MARIA)).toHaveLength(1);
    // The retry (SQS redelivery) finishes the run without sending again.
    await runEventGroup(world.deps, [decided]);
    expect(world.sentTo(MARIA)).toHaveLength(1);
    expect(await world.core.runs.get(draft.conversationId, draft.runId)).toMatchObject({
      status: 'completed',
    });
  });
});
