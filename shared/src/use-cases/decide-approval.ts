import { type CardTimerSettings, cancelCardTimers } from '../agent/card-timers';
import { reasonRedrafts } from '../agent/redraft-rules';
import type { PendingAction } from '../contracts/conversations';
import { ADMIN_APPROVAL_TOOLS } from '../domain/protected-paths';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { newId } from '../ids';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import { enqueueRedraft } from './redraft-card';
import { type ValidateDecisionDeps, validateDecision } from './validate-decision';

/** An APPROVED card still not executing after this long was stranded by a crash before its enqueue. */
const STRANDED_MS = 60_000;

export interface DecideApprovalDeps extends ValidateDecisionDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  audit: AuditLog;
  queue: EventQueue;
  clock: () => Date;
  /** The card's expiry and re-notification schedules, deleted once it is decided. */
  cardTimers?: CardTimerSettings;
}

export interface DecideApprovalInput {
  conversationId: string;
  actionId: string;
  decision: 'approve' | 'deny';
  /** Present when the person edited the draft before approving. */
  editedArgs?: Record<string, unknown>;
  reason?: string;
  /**
   * A deny with a reason drafts again with it (cards #18): `true` always, `false` never, absent when the
   * reason is something the rules can apply (a day, "shorter", …).
   */
  redraft?: boolean;
  /** `isAdmin` from the verified session; absent (an SMS reply) counts as not an admin. */
  user: { id: string; email: string; name?: string; isAdmin?: boolean };
}

/**
 * A person's decision on a card. Primary course: load → (approve) validate the args that will run against
 * the tool's schema and the policy's preconditions (validate-decision.ts), re-hash an edit →
 * conditional PENDING → APPROVED/DENIED, so of two people pressing at once exactly one wins and the
 * other gets a 409 with the card's current state → audit → enqueue `approval.decided` so the paused run
 * resumes in the worker (execution happens there, exactly once).
 */
export async function decideApproval(
  deps: DecideApprovalDeps,
  input: DecideApprovalInput,
): Promise<PendingAction> {
  const action = await deps.actions.get(input.conversationId, input.actionId);
  if (!action) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  if (action.status !== 'PENDING') return refuseDecided(deps, action);
  if (input.decision === 'approve' && ADMIN_APPROVAL_TOOLS.has(action.tool) && input.user.isAdmin !== true) {
    throw new ForbiddenError(
      'Only an admin can approve a policy change; ask an admin to review it (anyone may deny it).',
    );
  }
  const at = deps.clock().toISOString();
  const patch = await decisionPatch(deps, action, input, at);
  const to = input.decision === 'approve' ? 'APPROVED' : 'DENIED';
  const updated = await deps.actions.transition(input.conversationId, input.actionId, ['PENDING'], to, patch);
  if (!updated) {
    const current = await deps.actions.get(input.conversationId, input.actionId);
    throw new ConflictError(`This card was already decided (${current?.status.toLowerCase() ?? 'unknown'})`, {
      action: current,
    });
  }
  await deps.conversations.adjustPending(input.conversationId, -1);
  await cancelCardTimers(deps, action.id);
  await deps.audit.append({
    conversationId: input.conversationId,
    type: input.decision === 'approve' ? 'approval.approved' : 'approval.denied',
    actor: input.user.email,
    at,
    data: { actionId: input.actionId, tool: action.tool, edit: updated.edit, reason: updated.denyReason },
  });
  await handOnToWorker(deps, action, updated, input, at);
  return updated;
}

/**
 * A card someone already decided: a 409 with its current state. Approved a while ago but never picked up
 * (a crash between the decision and the enqueue): nudge the run again. Not on a fresh conflict: that is
 * just the other person of a simultaneous double press. The worker resumes a run idempotently, so a spare
 * nudge is harmless.
 */
async function refuseDecided(deps: DecideApprovalDeps, action: PendingAction): Promise<never> {
  const now = deps.clock();
  const stranded =
    action.status === 'APPROVED' &&
    now.getTime() - Date.parse(action.decidedAt ?? action.updatedAt) > STRANDED_MS;
  if (stranded) await enqueueResume(deps, action, now.toISOString());
  throw new ConflictError(`This card was already decided (${action.status.toLowerCase()})`, { action });
}

/** Who decided and when; an approval carries the checked (possibly edited) args, a deny its reason. */
async function decisionPatch(
  deps: DecideApprovalDeps,
  action: PendingAction,
  input: DecideApprovalInput,
  at: string,
): Promise<Partial<PendingAction>> {
  const who = {
    decidedBy: input.user.email,
    ...(input.user.name ? { decidedByName: input.user.name } : {}),
    decidedAt: at,
    updatedAt: at,
  };
  if (input.decision === 'approve')
    return { ...who, ...(await validateDecision(deps, action, input.editedArgs)) };
  return { ...who, denyReason: input.reason?.slice(0, 1000) ?? '' };
}

/**
 * The reason asks for another draft ("shorter", "say Friday"): the worker ends the paused run and drafts
 * again with it. A reason that only explains ("she already called") resumes the run, which stops (rules)
 * or lets the model decide with the reason in its tool result (Claude). An approval resumes the run.
 */
async function handOnToWorker(
  deps: DecideApprovalDeps,
  action: PendingAction,
  updated: PendingAction,
  input: DecideApprovalInput,
  at: string,
) {
  const reason = updated.denyReason?.trim();
  if (!(input.decision === 'deny' && reason && (input.redraft ?? reasonRedrafts(action.args, reason))))
    return enqueueResume(deps, action, at);
  const { id, email, name } = input.user;
  await enqueueRedraft(
    deps.queue,
    {
      conversationId: action.conversationId,
      actionId: action.id,
      runId: action.runId,
      kind: 'deny',
      instruction: reason,
      user: { id, email, ...(name ? { name } : {}) },
    },
    at,
  );
}

async function enqueueResume(deps: DecideApprovalDeps, action: PendingAction, at: string) {
  await deps.queue.send({
    id: newId('ev_'),
    type: 'approval.decided',
    correlationId: `conv:${action.conversationId}`,
    key: `conv:${action.conversationId}`,
    occurredAt: at,
    payload: { conversationId: action.conversationId, actionId: action.id, runId: action.runId },
  });
}
