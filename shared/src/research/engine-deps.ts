import type { EventEnvelope, ResearchNodeStep } from '../contracts/events';
import type { ResearchNode } from '../contracts/research';
import type { ResearchLimits } from '../domain/research/graph';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { Log } from '../ports/logger';
import type { ResearchStore } from '../ports/research-store';
import type { Workspace } from '../ports/workspace';
import type { ResearchBrain } from './brain';

export interface ResearchRetry {
  /** Attempts per node before it is FAILED (its parent's result then says it is missing). */
  maxAttempts: number;
  /** Backoff before attempt n+1: base × 2^(n-1) seconds, on the queue's own delay. */
  baseDelaySeconds: number;
}

/** What the research engine runs on: the store, the queue, a brain (rules or Claude) and the report's home. */
export interface ResearchDeps {
  research: ResearchStore;
  queue: EventQueue;
  conversations: ConversationStore;
  brain: ResearchBrain;
  clock: () => Date;
  log: Log;
  limits: ResearchLimits;
  retry: ResearchRetry;
  /** How long a claimed node belongs to its worker; past it a redelivered message may take it over. */
  leaseSeconds: number;
  /** Reports are committed to `reports/` in the memory repository when there is one. */
  workspace?: () => Promise<Workspace | undefined>;
  /** The live channel (inbox's port) once it exists; best-effort, never throws. */
  publish?: (u: { type: 'research.node'; taskId: string; nodeId: string; status: string }) => Promise<void>;
  /** Test seams: a throw here is a worker that died at that point (the crash-during-fan-in test). */
  faults?: {
    afterResult?: (node: ResearchNode) => void | Promise<void>;
    afterCountDown?: (node: ResearchNode, target: string) => void | Promise<void>;
  };
}

export const DEFAULT_RESEARCH_RETRY: ResearchRetry = { maxAttempts: 3, baseDelaySeconds: 2 };

/**
 * The queue message of one node step. Its id is deterministic: a re-sent `propose` is a ledger duplicate, and
 * a re-sent `run`/`aggregate` (outside the ledger) finds its node claimed or done and does nothing new.
 */
export function nodeEvent(
  taskId: string,
  nodeId: string,
  step: ResearchNodeStep['step'],
  attempt: number,
  now: Date,
): EventEnvelope {
  return {
    id: `rn_${taskId}_${nodeId}_${step}_${attempt}`,
    correlationId: taskId,
    key: `research:${taskId}`,
    occurredAt: now.toISOString(),
    type: 'research.node',
    payload: { taskId, nodeId, step, attempt },
  };
}

export async function enqueueStep(
  deps: Pick<ResearchDeps, 'queue' | 'clock'>,
  node: Pick<ResearchNode, 'taskId' | 'id'>,
  step: ResearchNodeStep['step'],
  opts: { attempt?: number; delaySeconds?: number } = {},
) {
  await deps.queue.send(
    nodeEvent(node.taskId, node.id, step, opts.attempt ?? 0, deps.clock()),
    opts.delaySeconds ? { delaySeconds: Math.min(900, opts.delaySeconds) } : undefined,
  );
}

/**
 * Several nodes' same step at once: one SendMessageBatch where the queue has it (a planner's children went
 * out one request after another, on the critical path of every fan-out), else one send each, side by side.
 * Ids are deterministic, so a partial failure is repaired by re-sending the lot (duplicates are no-ops).
 */
export async function enqueueSteps(
  deps: Pick<ResearchDeps, 'queue' | 'clock'>,
  nodes: Pick<ResearchNode, 'taskId' | 'id' | 'attempts'>[],
  step: ResearchNodeStep['step'],
) {
  const now = deps.clock();
  const events = nodes.map((n) => nodeEvent(n.taskId, n.id, step, n.attempts, now));
  if (events.length === 0) return;
  if (deps.queue.sendBatch) await deps.queue.sendBatch(events);
  else await Promise.all(events.map((e) => deps.queue.send(e)));
}
