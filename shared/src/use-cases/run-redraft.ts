import { type AgentDeps, driveRun } from '../agent/run-agent';
import type { RunInput } from '../agent/run-context';
import type { Trigger } from '../agent/types';
import type { EventOf } from '../contracts/events';
import { isAppError } from '../errors';
import type { AgentOutcome } from './run-event-group';

export interface RunRedraftDeps extends AgentDeps {
  policy?: AgentDeps['policy'] & {
    recordAnswer?(
      conversationId: string,
      recordAs: string,
      opts: { by: string; holds: boolean; now: Date },
    ): Promise<void>;
  };
}

/**
 * The worker's half of a redraft (cards #18; the API's half is redraft-card.ts, or a deny with a reason in
 * decide-approval.ts). Primary course: record the answers as facts with who answered → end the paused run
 * of the replaced card → run its trigger again, with the person's note on it: the policy is asked afresh
 * (an answered lead now qualifies), rules mode applies the instruction to the template, Claude mode gets it
 * in its prompt. The new card says what it replaces and what was (not) applied.
 */
export async function runRedraft(
  deps: RunRedraftDeps,
  event: EventOf<'card.redraft'>,
): Promise<AgentOutcome> {
  const p = event.payload;
  const card = await deps.actions.get(p.conversationId, p.actionId);
  if (!card) return { outcome: `no card ${p.actionId}` };
  const now = deps.clock();
  const by = p.user.name ?? p.user.email;
  for (const a of p.answers ?? []) {
    try {
      await deps.policy?.recordAnswer?.(p.conversationId, a.recordAs, { by, holds: a.holds, now });
    } catch (e) {
      // A rulebase edited since the card was drafted may no longer ask this: the redraft says so by asking again.
      if (isAppError(e) && e.retryable) throw e;
      deps.log.warn('redraft.answer_refused', { recordAs: a.recordAs, error: String(e) });
    }
  }
  const run = await deps.runs.get(p.conversationId, p.runId);
  if (run?.status === 'awaiting_approval' && run.awaitingActionId === p.actionId) {
    await deps.runs.update(p.conversationId, p.runId, {
      status: 'completed',
      awaitingActionId: undefined,
      outcome: `redrafted (${p.kind}) by ${by}`,
      updatedAt: now.toISOString(),
    });
  }
  const trigger = await triggerOf(deps, p.conversationId, p.runId);
  if (!trigger) return { outcome: `run ${p.runId} has no input to redraft from` };
  const redrafted: Trigger = {
    ...trigger,
    redraft: {
      fromActionId: card.id,
      kind: p.kind,
      ...(p.instruction ? { instruction: p.instruction } : {}),
      by: { id: p.user.id, name: by },
      previous: { tool: card.tool, args: card.args },
    },
  };
  return driveRun(deps, {
    conversation: { id: p.conversationId, create: () => missing(p.conversationId), inbound: [] },
    trigger: redrafted,
    runId: `run_${event.id}`,
    eventIds: [event.id],
    key: event.key,
  });
}

/** The replaced run's trigger, from its stored input step (older runs stored the bare trigger). */
async function triggerOf(
  deps: AgentDeps,
  conversationId: string,
  runId: string,
): Promise<Trigger | undefined> {
  const steps = await deps.runs.listSteps(conversationId, runId);
  const input = steps.find((s) => s.kind === 'input')?.data as RunInput | Trigger | undefined;
  if (!input) return undefined;
  const t = 'trigger' in input ? input.trigger : input;
  // A redraft of a redraft starts from the original trigger; the newest note replaces the older one.
  const { redraft: _older, ...rest } = t;
  return rest as Trigger;
}

function missing(id: string): never {
  throw new Error(`Conversation ${id} does not exist`);
}
