import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { lastToolResults, type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import { isAppError } from '../../shared/src/errors';
import { newId } from '../../shared/src/ids';
import { runEventGroup } from '../../shared/src/use-cases/run-event-group';
import { type CrashMode, faultInjector, SimulatedCrash } from './faults';
import {
  BOB,
  createWorld,
  DAVID,
  LEAD,
  MARIA,
  PRIYA,
  type Servers,
  smsEvent,
  startServers,
  type World,
} from './harness';

/**
 * SPEC §2 / §6.2: a worker that dies mid-run is redelivered and finishes without repeating a side effect.
 * The whole flow — an inbound text triaged to a drafted reply, a person's approval, the resumed run that
 * sends it — is run once per persisted write, with the worker dying just before or just after that write;
 * the same event is then redelivered (as SQS would) until the run completes. Every time, the OpenPhone
 * emulator must have sent the reply exactly once, and a send whose outcome the dead worker never learned is
 * settled by asking the provider (findSentMessage), not by sending again.
 */
/** What DynamoDB answers when a partition is hot, once the SDK has used up its own retries. */
const throttled = () =>
  new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded.',
    $metadata: { httpStatusCode: 400, attempts: 4 },
  });

/** The fake model for the Claude-mode sweep: a pure function of the request, so a re-asked call answers alike. */
function triageModel(req: MessagesRequest) {
  const [result] = lastToolResults(req);
  const first = req.messages[0]?.content;
  const from = JSON.stringify(first).match(/Inbound text from (\+\d+)/)?.[1] ?? '';
  if (!result) return turn.toolUse('search_contacts', { query: from });
  if (result.name === 'search_contacts')
    return turn.toolUse('send_message', {
      to: from,
      text: 'Hi, thanks for letting us know. We will send someone today.',
    });
  return turn.text('Sent the reply.');
}

let servers: Servers;
beforeAll(async () => {
  servers = await startServers({ anthropic: true, anthropicReply: triageModel });
});
afterAll(async () => {
  await servers?.stop();
});

const SENDERS = [MARIA, DAVID, BOB, LEAD, PRIYA];
const STALE_MS = 7 * 60_000;

interface Outcome {
  crashes: string[];
  writes: number;
  labels: string[];
  problems: string[];
}

async function scenario(
  world: World,
  from: string,
  crash?: { n: number; mode: CrashMode },
  finalNote = /The acknowledgement was sent/,
): Promise<Outcome> {
  // Apart from the last text to the same person by more than the provider reconciliation's clock skew.
  servers.clock.advance(2 * 60_000);
  const inj = faultInjector(throttled);
  const deps = inj.wrap(world.deps);
  inj.arm(crash?.n ?? Number.POSITIVE_INFINITY, crash?.mode ?? 'after');
  const crashes: string[] = [];
  const sentBefore = servers.openphone.state.sent.length;

  // SQS redelivers a failed message after its visibility timeout; an action another worker may still be
  // executing is left alone until it is stale (staleExecutingMs), then reconciled.
  async function deliver(event: EventEnvelope) {
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        return await runEventGroup(deps, [event]);
      } catch (e) {
        if (e instanceof ProvisionedThroughputExceededException) {
          crashes.push(e.name);
          servers.clock.advance(30_000);
        } else if (e instanceof SimulatedCrash) {
          crashes.push(e.message);
          inj.revive();
          servers.clock.advance(30_000);
        } else if (isAppError(e) && e.code === 'action_in_flight') {
          crashes.push('redelivered while in flight');
          servers.clock.advance(STALE_MS);
        } else throw e;
      }
    }
    throw new Error(`${event.type} did not complete after 8 deliveries`);
  }

  await deliver(smsEvent(from, 'Hi, the bathroom fan stopped working this morning', servers.clock()));
  const labelsPhase1 = [...inj.labels];
  const conv = await world.conversationFor(`sms:${from}`);
  const pending = (await world.core.actions.listByConversation(conv!.id)).filter(
    (a) => a.status === 'PENDING',
  );
  const problems: string[] = [];
  if (pending.length !== 1) problems.push(`${pending.length} pending drafts after triage`);
  const action = pending[0]!;
  const pausedConv = await world.core.conversations.get(conv!.id);
  if (pausedConv?.pendingCount !== 1) problems.push(`pendingCount ${pausedConv?.pendingCount} while waiting`);

  await world.decide(action, 'approve');
  await deliver({
    id: newId('ev_'),
    type: 'approval.decided',
    correlationId: `conv:${conv!.id}`,
    key: `conv:${conv!.id}`,
    occurredAt: servers.clock().toISOString(),
    payload: { conversationId: conv!.id, actionId: action.id, runId: action.runId },
  });

  const sent = servers.openphone.state.sent.slice(sentBefore).filter((m) => m.to.includes(from));
  if (sent.length !== 1) problems.push(`sent ${sent.length} times`);
  const final = await world.core.actions.get(conv!.id, action.id);
  if (final?.status !== 'EXECUTED') problems.push(`action ${final?.status}`);
  if (sent[0] && (final?.result as { messageId?: string })?.messageId !== sent[0].id)
    problems.push('the recorded result is not the message that was sent');
  const run = await world.core.runs.get(conv!.id, action.runId);
  if (run?.status !== 'completed' || run.outcome !== 'responded')
    problems.push(`run ${run?.status} ${run?.outcome}`);
  const c = await world.core.conversations.get(conv!.id);
  if (c?.pendingCount !== 0) problems.push(`pendingCount ${c?.pendingCount} after the decision`);
  const last = (await world.core.conversations.listMessages(conv!.id))
    .filter((m) => m.role === 'assistant')
    .at(-1);
  if (!finalNote.test(last?.text ?? '')) problems.push(`final note: ${last?.text}`);
  const audit = await world.core.audit.list(conv!.id);
  const outcomes = audit.filter((e) => e.type === 'action.executed' || e.type === 'action.reconciled');
  if (outcomes.length !== 1) problems.push(`${outcomes.map((e) => e.type).join(', ')} in the audit`);
  return {
    crashes,
    writes: inj.writes,
    labels: [...labelsPhase1, ...inj.labels.slice(labelsPhase1.length)],
    problems,
  };
}

test('a clean run of the flow, for the write count and the labels', async () => {
  const world = await createWorld(servers);
  try {
    const clean = await scenario(world, MARIA);
    expect(clean.problems).toEqual([]);
    expect(clean.crashes).toEqual([]);
    expect(clean.labels).toContain('actions.transition→EXECUTING');
    // The card's outcome is committed with the turn's other writes after the send (agent/turn.ts).
    expect(clean.labels.filter((l) => l.endsWith('→EXECUTED'))).toHaveLength(1);
  } finally {
    await world.stop();
  }
});

for (const mode of ['after', 'before'] as const) {
  test(`the worker dies ${mode} each persisted write in turn; redelivery sends exactly once`, async () => {
    let world = await createWorld(servers);
    const clean = await scenario(world, MARIA);
    expect(clean.problems).toEqual([]);
    const failures: string[] = [];
    const reconciledAt: string[] = [];
    const inFlightAt: string[] = [];
    try {
      for (let n = 1; n <= clean.writes; n++) {
        if (n % SENDERS.length === 0) {
          await world.stop();
          world = await createWorld(servers);
        }
        const from = SENDERS[n % SENDERS.length]!;
        const out = await scenario(world, from, { n, mode });
        if (out.crashes.length === 0) failures.push(`write ${n} (${clean.labels[n - 1]}): no crash happened`);
        for (const p of out.problems) failures.push(`write ${n} (${clean.labels[n - 1]}): ${p}`);
        const conv = await world.conversationFor(`sms:${from}`);
        const audit = await world.core.audit.list(conv!.id);
        if (audit.some((e) => e.type === 'action.reconciled')) reconciledAt.push(clean.labels[n - 1]!);
        if (out.crashes.includes('redelivered while in flight')) inFlightAt.push(clean.labels[n - 1]!);
      }
    } finally {
      await world.stop();
    }
    expect(failures).toEqual([]);
    // An action left EXECUTING is not touched while it may still be in flight, then reconciled: found at the
    // provider when the worker died after sending (so never resent), sent once when it died before.
    // The outcome is the write (a direct one or the turn's commit) whose label ends `→EXECUTED`.
    const outcome = clean.labels.find((l) => l.endsWith('→EXECUTED'));
    expect(inFlightAt).toContain(mode === 'after' ? 'actions.transition→EXECUTING' : outcome);
    if (mode === 'before') expect(reconciledAt).toEqual([outcome]);
    else expect(reconciledAt).toEqual([]);
  }, 600_000);
}

test('a transient DynamoDB failure at any write is retried by redelivery, never turned into a failed run', async () => {
  let world = await createWorld(servers);
  const clean = await scenario(world, MARIA);
  const failures: string[] = [];
  try {
    for (let n = 1; n <= clean.writes; n++) {
      if (n % SENDERS.length === 0) {
        await world.stop();
        world = await createWorld(servers);
      }
      const out = await scenario(world, SENDERS[n % SENDERS.length]!, { n, mode: 'transient' });
      if (!out.crashes.includes('ProvisionedThroughputExceededException'))
        failures.push(`write ${n} (${clean.labels[n - 1]}): the error did not reach the queue`);
      for (const p of out.problems) failures.push(`write ${n} (${clean.labels[n - 1]}): ${p}`);
      const conv = await world.conversationFor(`sms:${SENDERS[n % SENDERS.length]}`);
      const said = (await world.core.conversations.listMessages(conv!.id)).map((m) => m.text);
      if (said.some((t) => t.startsWith('Something went wrong')))
        failures.push(`write ${n} (${clean.labels[n - 1]}): told the team it failed`);
    }
  } finally {
    await world.stop();
  }
  expect(failures).toEqual([]);
}, 600_000);

test('Claude mode: a store hiccup while the prompt is built does not switch the run to rules mode', async () => {
  const world = await createWorld(servers, { claude: true });
  try {
    let failed = false;
    // The history comes with the turn's partition read; the admins' instructions are the prompt's own store read.
    const instructions = world.deps.adminInstructions;
    const deps = {
      ...world.deps,
      adminInstructions: async () => {
        if (!failed) {
          failed = true;
          throw throttled();
        }
        return instructions?.();
      },
    };
    const event = smsEvent(MARIA, 'The garage door opener is broken', servers.clock());
    await expect(runEventGroup(deps, [event])).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    await runEventGroup(deps, [event]);
    const [draft] = await world.actionsFor(`sms:${MARIA}`);
    expect(draft).toMatchObject({ proposedBy: 'model', status: 'PENDING' });
    expect(world.log.entries.some((e) => e.message === 'model.unavailable')).toBe(false);
  } finally {
    await world.stop();
  }
});

test('Claude mode: the worker dies after each persisted write; a recorded model call is never asked again', async () => {
  let world = await createWorld(servers, { claude: true });
  const modelCalls = () => servers.anthropic!.requests.filter((r) => r.status === 200).length;
  let calls = modelCalls();
  const clean = await scenario(world, MARIA, undefined, /^Sent the reply\.$/);
  expect(clean.problems).toEqual([]);
  expect(modelCalls() - calls).toBe(3);
  // Plan steps are written on their own (runs.appendStep:plan) or with the turn's commit (turns.commit:…,plan,…).
  expect(clean.labels.flatMap((l) => l.match(/\bplan\b/g) ?? [])).toHaveLength(3);
  const failures: string[] = [];
  try {
    for (let n = 1; n <= clean.writes; n++) {
      if (n % SENDERS.length === 0) {
        await world.stop();
        world = await createWorld(servers, { claude: true });
      }
      calls = modelCalls();
      const out = await scenario(
        world,
        SENDERS[n % SENDERS.length]!,
        { n, mode: 'after' },
        /^Sent the reply\.$/,
      );
      if (out.crashes.length === 0) failures.push(`write ${n} (${clean.labels[n - 1]}): no crash happened`);
      for (const p of out.problems) failures.push(`write ${n} (${clean.labels[n - 1]}): ${p}`);
      // A model answer recorded in its plan step is replayed, never asked for again (dying after a write
      // means every model call made so far was recorded).
      const extra = modelCalls() - calls - 3;
      if (extra !== 0)
        failures.push(`write ${n} (${clean.labels[n - 1]}): ${extra} model calls more than a clean run`);
    }
  } finally {
    await world.stop();
  }
  expect(failures).toEqual([]);
}, 600_000);
