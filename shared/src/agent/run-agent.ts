import type { Run } from '../contracts/runs';
import { addLogContext } from '../logger';
import { DurableRun } from './durable-run';
import { runLoop } from './loop';
import { respond, type Step } from './respond';
import { type AgentDeps, emptyUsage, RunContext, type StartRun } from './run-context';
import { isTransient } from './transient';
import { openTurn } from './turn';

export type { AgentDeps, StartRun } from './run-context';
export { isTransient } from './transient';

/**
 * One agent run, durable step by step (SPEC §3.2): open (or resume) the run, drive the loop (loop.ts:
 * plan-step → tool-step → checker → respond), then record how it ended — paused on an approval, or done.
 * A failure a retry cannot fix ends the run with a message; a transient one is rethrown for redelivery.
 */
export async function driveRun(
  outer: AgentDeps,
  start: StartRun,
): Promise<{ runId: string; outcome: string; unseen?: string[] }> {
  const deps = await openTurn(outer, start.conversation.id, start.runId);
  const release = deps.policy?.holdFacts?.(start.conversation.id, deps.turn?.facts);
  try {
    const out = await runOnce(deps, start);
    await start.settle?.(deps);
    await deps.turn?.flush();
    return out;
  } finally {
    release?.();
  }
}

async function runOnce(
  deps: AgentDeps,
  start: StartRun,
): Promise<{ runId: string; outcome: string; unseen?: string[] }> {
  const run = await openRun(deps, start);
  // Every later log line of this record (agent, tools, adapters) names the conversation and the run.
  addLogContext({ conversationId: run.conversationId, runId: run.id });
  if (run.status === 'completed' || run.status === 'failed') {
    // The same primary event can come back in a later group (a parked copy): events that run never saw
    // are handed back, so they get a run of their own instead of being lost.
    const unseen = start.eventIds.filter((id) => !run.trigger.eventIds.includes(id));
    return { runId: run.id, outcome: run.outcome ?? run.status, ...(unseen.length ? { unseen } : {}) };
  }

  const durable = new DurableRun(
    deps.runs,
    run,
    await deps.runs.listSteps(run.conversationId, run.id),
    deps.clock,
  );
  const ctx = new RunContext(deps, durable, start);
  let result: Step;
  try {
    result = await runLoop(ctx);
  } catch (e) {
    if (isTransient(e)) throw e;
    deps.log.error('run.failed', { runId: run.id, error: String(e) });
    await respond(
      ctx,
      `Something went wrong and I stopped: ${e instanceof Error ? e.message : String(e)}`,
      true,
    );
    result = { kind: 'done', outcome: 'FAILED' };
  }
  return finishRun(ctx, result);
}

/** The run record: read, or created on the first attempt. */
async function openRun(deps: AgentDeps, start: StartRun): Promise<Run> {
  const existing = await deps.runs.get(start.conversation.id, start.runId);
  if (existing) return existing;
  const now = deps.clock().toISOString();
  const run: Run = {
    id: start.runId,
    conversationId: start.conversation.id,
    status: 'running',
    mode: deps.model ? 'claude' : 'rules',
    trigger: { type: start.trigger.kind, key: start.key, eventIds: start.eventIds },
    iteration: 0,
    nextSeq: 0,
    usage: emptyUsage(),
    createdAt: now,
    updatedAt: now,
  };
  await deps.runs.create(run);
  return run;
}

/** Paused on an approval, or done: the run record says which; memory is synced either way, a done run logs its metric. */
async function finishRun(ctx: RunContext, result: Step): Promise<{ runId: string; outcome: string }> {
  const { deps, durable } = ctx;
  const { conversationId: convId, id: runId, mode } = durable.run;
  const usage = ctx.usage;
  // Notes written before a pause are pushed now: the resumed run (maybe in another container) starts from
  // the remote and does not know this turn touched memory.
  if (deps.memory && ctx.memoryTouched) {
    const sync = await deps.memory.afterTurn({
      conversationId: convId,
      summary:
        `Conversation ${convId}: ${result.kind === 'paused' ? `paused on ${result.actionId}` : result.outcome}`.slice(
          0,
          200,
        ),
    });
    if (sync.conflicts.length) {
      await ctx.notify(
        'alert',
        'Memory conflict',
        `The assistant's notes had a merge conflict in ${sync.conflicts.join(', ')}; it will resolve it next turn.`,
      );
    }
  }
  if (result.kind === 'paused') {
    await deps.runs.update(convId, runId, {
      status: 'awaiting_approval',
      awaitingActionId: result.actionId,
      usage,
      nextSeq: durable.nextSeq,
      updatedAt: deps.clock().toISOString(),
    });
    return { runId, outcome: `awaiting approval of ${result.actionId}` };
  }
  await deps.runs.update(convId, runId, {
    status: result.outcome === 'FAILED' ? 'failed' : 'completed',
    awaitingActionId: undefined,
    outcome: result.outcome,
    usage,
    nextSeq: durable.nextSeq,
    updatedAt: deps.clock().toISOString(),
  });
  deps.log.info('run.metric', {
    runId,
    conversationId: convId,
    mode,
    outcome: result.outcome,
    steps: durable.nextSeq,
    ...usage,
  });
  return { runId, outcome: result.outcome };
}
