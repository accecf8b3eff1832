import { createHash } from 'node:crypto';
import { type CardTimerSettings, scheduleCardTimers } from '../agent/card-timers';
import type { PendingAction } from '../contracts/conversations';
import type { Run } from '../contracts/runs';
import { cardArgsHash } from '../domain/args-hash';
import { ConflictError, NotFoundError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { RunStore } from '../ports/run-store';

export interface RetryActionDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  runs: RunStore;
  audit: AuditLog;
  queue: EventQueue;
  clock: () => Date;
  cardTimers?: CardTimerSettings;
}

/** Runs that exist only to carry a retried card; the worker executes their one card when it is approved. */
export const RETRY_RUN_PREFIX = 'retry_';
export const isRetryRun = (runId: string) => runId.startsWith(RETRY_RUN_PREFIX);

/**
 * A person's "Retry" on a FAILED card (SPEC §6.8). Primary course: the card must be FAILED → a NEW card
 * with its own id and its own argument hash, PENDING, in a one-card run (one per failed card: two presses
 * make one retry, a repeated press returns it) → the team is asked to approve it afresh (push, timers).
 * Nothing executes here: the old approval never carries over.
 */
export async function retryAction(
  deps: RetryActionDeps,
  input: { conversationId: string; actionId: string; user: { id: string; email: string } },
): Promise<PendingAction> {
  const failed = await deps.actions.get(input.conversationId, input.actionId);
  if (!failed) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  if (failed.status !== 'FAILED')
    throw new ConflictError(`Only a failed card can be retried (it is ${failed.status.toLowerCase()})`, {
      action: failed,
    });
  // One retry card per failed card, whoever presses and however often: its id comes from the failed card's.
  const id =
    failed.retriedAs ?? `act_retry_${createHash('sha256').update(failed.id).digest('hex').slice(0, 24)}`;
  const card =
    (await deps.actions.get(failed.conversationId, id)) ??
    (await createRetryCard(deps, failed, id, input.user));
  if (!failed.retriedAs)
    await deps.actions.transition(failed.conversationId, failed.id, ['FAILED'], 'FAILED', {
      retriedAs: id,
      updatedAt: deps.clock().toISOString(),
    });
  return card;
}

/** A conditional create that lost to a simultaneous press: the winner's record is the answer. */
async function createOnce<T>(create: () => Promise<void>, read: () => Promise<T | undefined>, value: T) {
  try {
    await create();
    return { value, created: true };
  } catch (e) {
    const winner = await read();
    if (winner) return { value: winner, created: false };
    throw e;
  }
}

async function createRetryCard(
  deps: RetryActionDeps,
  failed: PendingAction,
  id: string,
  user: { id: string; email: string },
): Promise<PendingAction> {
  const at = deps.clock().toISOString();
  const runId = `${RETRY_RUN_PREFIX}${id}`;
  const run: Run = {
    id: runId,
    conversationId: failed.conversationId,
    status: 'awaiting_approval',
    mode: 'rules',
    trigger: { type: 'retry', key: `conv:${failed.conversationId}`, eventIds: [] },
    iteration: 0,
    nextSeq: 0,
    awaitingActionId: id,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: at,
    updatedAt: at,
  };
  await createOnce(
    () => deps.runs.create(run),
    () => deps.runs.get(failed.conversationId, runId),
    run,
  );
  const card: PendingAction = {
    id,
    conversationId: failed.conversationId,
    runId,
    tool: failed.tool,
    args: failed.args,
    argsHash: cardArgsHash({ tool: failed.tool, retryOf: failed.id }, failed.args),
    summary: failed.summary,
    status: 'PENDING',
    proposedBy: failed.proposedBy,
    reason: `Retry of a failed card (${failed.error ?? 'failed'}), asked for by ${user.email}`.slice(0, 1000),
    review: failed.review,
    ...(failed.policy ? { policy: failed.policy } : {}),
    retryOf: failed.id,
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
  const made = await createOnce(
    () => deps.actions.create(card),
    () => deps.actions.get(card.conversationId, card.id),
    card,
  );
  if (!made.created) return made.value;
  await deps.conversations.adjustPending(card.conversationId, 1);
  await announce(deps, card, user, at);
  return card;
}

async function announce(
  deps: RetryActionDeps,
  card: PendingAction,
  user: { id: string; email: string },
  at: string,
) {
  await deps.conversations.appendMessage({
    id: `m_${card.id}`,
    conversationId: card.conversationId,
    role: 'tool',
    text: card.summary,
    createdAt: at,
    author: { kind: 'assistant', name: 'Switchboard' },
    runId: card.runId,
    actionId: card.id,
    tool: { name: card.tool, args: card.args },
  });
  await deps.audit.append({
    conversationId: card.conversationId,
    type: 'action.retry_requested',
    actor: user.email,
    at,
    data: { actionId: card.id, retryOf: card.retryOf, tool: card.tool },
  });
  await deps.queue.send({
    id: `notify_${card.id}`,
    type: 'notify',
    correlationId: `conv:${card.conversationId}`,
    key: `notify:${card.conversationId}`,
    occurredAt: at,
    payload: {
      kind: 'approval',
      conversationId: card.conversationId,
      title: `Approve (retry): ${card.summary}`.slice(0, 120),
      body: `${user.email} asked to retry a failed card.`,
      actionId: card.id,
    },
  });
  await scheduleCardTimers(deps, card, { urgent: card.tool === 'escalate' });
}
