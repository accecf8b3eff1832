import { type AgentDeps, driveRun } from '../agent/run-agent';
import { openTurn } from '../agent/turn';
import type { EventOf } from '../contracts/events';
import { UpstreamError } from '../errors';
import type { ResearchDeps } from '../research/engine-deps';
import { endText, reviewText, textedBy } from '../research/text-updates';

const ENDED = new Set(['done', 'failed', 'cancelled']);

/**
 * A research task asked for by a team member over SMS (research/text-updates): its plan waiting for review,
 * or its end, is texted to them through a one-step run in their conversation — the same `reply_to_sender`
 * the gate's answers use (guarded, exactly once; the run id is fixed by the message). What is said follows
 * the task's state when the message is handled: a review already decided is not texted again.
 */
export async function tellResearchByText(
  deps: AgentDeps & { research: ResearchDeps },
  event: EventOf<'research.node'>,
): Promise<{ runId?: string; outcome: string }> {
  const { taskId, attempt } = event.payload;
  const graph = await deps.research.research.load(taskId);
  if (!graph) return { outcome: `no research task ${taskId}` };
  const { task } = graph;
  const conv = await deps.conversations.get(task.conversationId);
  // The turn that started the task writes its new conversation when it ends: until then, come back later.
  if (!conv) throw new UpstreamError(`conversation ${task.conversationId} is not written yet`);
  const phone = textedBy(conv);
  if (!phone || !conv.contact) return { outcome: `research ${taskId}: not a conversation by text` };
  const root = graph.nodes.find((n) => !n.parentId);
  const text =
    task.status === 'review' && task.draft
      ? reviewText(task, task.draft)
      : ENDED.has(task.status)
        ? endText(task, root)
        : undefined;
  if (!text) return { outcome: `research ${taskId} is ${task.status}: nothing to text` };
  const runId = `run_research_${taskId}_tell_${attempt}`;
  const user = {
    id: conv.contact.id ?? task.createdBy,
    email: conv.contact.email ?? `${phone}@sms`,
    ...(conv.contact.name ? { name: conv.contact.name } : {}),
  };
  return driveRun(await openTurn(deps, task.conversationId, runId), {
    conversation: { id: task.conversationId, create: () => missing(task.conversationId), inbound: [] },
    trigger: { kind: 'chat', channel: 'sms', text: `research ${task.goal}`, user, phone },
    runId,
    eventIds: [event.id],
    key: event.key,
    reply: text,
  });
}

function missing(id: string): never {
  throw new Error(`Conversation ${id} does not exist`);
}
