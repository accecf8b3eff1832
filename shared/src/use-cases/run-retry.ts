import { type ExecuteDeps, executeApprovedAction } from '../agent/execute-action';
import type { EventOf } from '../contracts/events';
import type { ConversationStore } from '../ports/conversation-store';
import type { RunStore } from '../ports/run-store';
import { capOutput } from '../tools/tool';
import type { AgentOutcome } from './process-event';

export interface RunRetryDeps extends ExecuteDeps {
  conversations: ConversationStore;
  runs: RunStore;
  timezone: string;
}

/**
 * The decision on a retried card (its run holds only that card, see retry-action): approved → executed
 * exactly once by the same executor as every card (hash check, conditional transitions, reconcile);
 * denied → nothing happens. The conversation says how it ended and the one-card run completes.
 */
export async function runRetryDecision(
  deps: RunRetryDeps,
  event: EventOf<'approval.decided'>,
): Promise<AgentOutcome> {
  const { conversationId, runId, actionId } = event.payload;
  const run = await deps.runs.get(conversationId, runId);
  if (!run) return { outcome: `no run ${runId}` };
  if (run.status !== 'awaiting_approval' && run.status !== 'running')
    return { runId, outcome: `run already ${run.status}` };
  const card = await deps.actions.get(conversationId, actionId);
  if (!card) return { runId, outcome: `no card ${actionId}` };
  if (card.status === 'PENDING') return { runId, outcome: 'still waiting' };
  let text: string;
  let ok = true;
  if (card.status === 'DENIED' || card.status === 'EXPIRED') {
    text = `Okay, the retry was not done${card.denyReason ? ` (${card.denyReason})` : ''}: ${card.summary}.`;
  } else {
    await deps.runs.update(conversationId, runId, {
      status: 'running',
      updatedAt: deps.clock().toISOString(),
    });
    const exec = await executeApprovedAction(
      deps,
      { conversationId, actionId },
      { conversationId, runId, now: deps.clock(), timezone: deps.timezone },
    );
    ok = exec.ok;
    text = exec.ok
      ? `Done (retry): ${card.summary}`
      : `The retry failed too: ${card.summary} — ${exec.error}`;
    await deps.conversations.appendMessage({
      id: `m_${card.id}_result`,
      conversationId,
      role: 'tool',
      text,
      createdAt: deps.clock().toISOString(),
      author: { kind: 'assistant', name: 'Switchboard' },
      runId,
      actionId,
      tool: {
        name: card.tool,
        args: card.args,
        ...(exec.ok ? { result: capOutput(exec.result, 2000) } : { error: exec.error }),
      },
    });
  }
  await deps.runs.update(conversationId, runId, {
    status: ok ? 'completed' : 'failed',
    awaitingActionId: undefined,
    outcome: text.slice(0, 500),
    updatedAt: deps.clock().toISOString(),
  });
  return { runId, outcome: text };
}
