import { type AgentDeps, driveRun } from '../agent/run-agent';
import { openTurn } from '../agent/turn';
import type { EventOf } from '../contracts/events';
import type { ResearchDeps } from '../research/engine-deps';

/**
 * A research task's writing step drafted a write ("email the three leads the comparison"): the draft becomes
 * an approval card in the task's conversation through a run of its own — the same executor, guard, reviewer
 * and card as any planned write, so nothing is sent until a person approves it, and an approved write runs
 * exactly once. The run id is fixed by task and node: a redelivered message replays the same run.
 */
export async function proposeResearchWrite(
  deps: AgentDeps & { research: ResearchDeps },
  event: EventOf<'research.node'>,
): Promise<{ runId?: string; outcome: string }> {
  const { taskId, nodeId } = event.payload;
  const graph = await deps.research.research.load(taskId);
  const node = graph?.nodes.find((n) => n.id === nodeId);
  const proposal = node?.output?.proposal;
  if (!graph || !node || node.status !== 'DONE' || !proposal)
    return { outcome: `no drafted write at ${taskId}/${nodeId}` };
  if (graph.task.status === 'cancelled') return { outcome: `research ${taskId} was cancelled; not proposed` };
  const { task } = graph;
  const runId = `run_research_${taskId}_${nodeId}`;
  const turn = await openTurn(deps, task.conversationId, runId);
  const reason = `Research “${task.goal}”: ${node.goal}`;
  return driveRun(turn, {
    conversation: { id: task.conversationId, create: () => missing(task.conversationId), inbound: [] },
    // The person who asked for the research is the run's requester; the card still needs a decision.
    trigger: {
      kind: 'chat',
      channel: 'web',
      text: reason,
      user: { id: task.createdBy, email: task.createdBy },
    },
    runId,
    eventIds: [event.id],
    key: event.key,
    proposal: { name: proposal.tool, args: proposal.args, reason },
  });
}

function missing(id: string): never {
  throw new Error(`Conversation ${id} does not exist`);
}
