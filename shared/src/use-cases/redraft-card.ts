import { type CardTimerSettings, cancelCardTimers } from '../agent/card-timers';
import type { PendingAction } from '../contracts/conversations';
import type { CardRedraftPayload } from '../contracts/events';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';

export interface RedraftCardDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  audit: AuditLog;
  queue: EventQueue;
  clock: () => Date;
  /** The replaced card's schedules are deleted, as a decision deletes them. */
  cardTimers?: CardTimerSettings;
}

export interface RedraftCardInput {
  conversationId: string;
  actionId: string;
  kind: 'redraft' | 'answer';
  instruction?: string;
  answers?: Array<{ recordAs: string; holds: boolean; value?: string }>;
  user: { id: string; email: string; name?: string };
}

/**
 * "Redraft…", a deny with a reason, or the card's open questions answered (cards #18). Primary course: load
 * the card → answers must be the card's own questions (an answer to anything else is a 400, so a person can
 * only establish what the policy asked) → conditional PENDING → SUPERSEDED, so of two people acting at once
 * exactly one wins and the other gets a 409 → audit → enqueue `card.redraft`: the worker records the answers
 * as facts with who answered, ends the paused run and drafts again (use-cases/run-redraft.ts).
 */
export async function redraftCard(deps: RedraftCardDeps, input: RedraftCardInput): Promise<PendingAction> {
  const action = await deps.actions.get(input.conversationId, input.actionId);
  if (!action) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  if (action.status !== 'PENDING') {
    throw new ConflictError(`This card was already decided (${action.status.toLowerCase()})`, { action });
  }
  const answers = input.answers?.map((a) => ({ recordAs: fillAnswer(action, a), holds: a.holds }));
  const said = input.answers?.map((a) => {
    const ask = action.policy?.questions?.find((q) => q.recordAs === a.recordAs)?.ask ?? a.recordAs;
    return `“${ask.length > 90 ? `${ask.slice(0, 90)}…` : ask}” — ${a.value ?? (a.holds ? 'yes' : 'no')}`;
  });
  const at = deps.clock().toISOString();
  const name = input.user.name ?? input.user.email;
  const updated = await deps.actions.transition(
    input.conversationId,
    input.actionId,
    ['PENDING'],
    'SUPERSEDED',
    {
      updatedAt: at,
      decidedBy: input.user.email,
      decidedAt: at,
      supersededReason: reasonText(input.kind, name, input.instruction, said),
    },
  );
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
    type: input.kind === 'answer' ? 'card.answered' : 'card.redraft',
    actor: input.user.email,
    at,
    data: { actionId: action.id, instruction: input.instruction, answers },
  });
  const payload: CardRedraftPayload = {
    conversationId: input.conversationId,
    actionId: action.id,
    runId: action.runId,
    kind: input.kind,
    ...(input.instruction ? { instruction: input.instruction } : {}),
    ...(answers ? { answers } : {}),
    user: {
      id: input.user.id,
      email: input.user.email,
      ...(input.user.name ? { name: input.user.name } : {}),
    },
  };
  await enqueueRedraft(deps.queue, payload, at);
  return updated;
}

export function enqueueRedraft(queue: EventQueue, payload: CardRedraftPayload, at: string) {
  return queue.send({
    id: newId('ev_'),
    type: 'card.redraft',
    correlationId: `conv:${payload.conversationId}`,
    key: `conv:${payload.conversationId}`,
    occurredAt: at,
    payload,
  });
}

function reasonText(
  kind: RedraftCardInput['kind'],
  name: string,
  instruction: string | undefined,
  said: string[] | undefined,
) {
  if (kind === 'answer') return `${name} answered ${(said ?? []).join('; ')}. A new draft replaces this one.`;
  return `${name} asked for a new draft: “${instruction ?? ''}”.`;
}

/**
 * An answer is one of the card's own questions: a ground pattern answered yes/no, or a pattern with one
 * variable filled with the short value the person typed (a number stays a number).
 */
export function fillAnswer(
  action: PendingAction,
  a: { recordAs: string; holds: boolean; value?: string },
): string {
  const q = action.policy?.questions?.find((x) => x.recordAs === a.recordAs);
  if (!q) throw new ValidationError(`“${a.recordAs}” is not one of this card's open questions.`);
  const vars = [...q.recordAs.matchAll(/(?<=[(,]\s*)([A-Z_][A-Za-z0-9_]*)(?=\s*[,)])/g)].map((m) => m[1]);
  if (!vars.length) return q.recordAs;
  if (vars.length > 1)
    throw new ValidationError('This question takes more than one value; answer it in chat.');
  if (!a.value) throw new ValidationError(`This question needs a value (${vars[0]}).`);
  const v = /^-?\d+(\.\d+)?$/.test(a.value)
    ? a.value
    : /^[a-z][a-z0-9_]*$/.test(a.value)
      ? a.value
      : JSON.stringify(a.value);
  return q.recordAs.replace(new RegExp(`(?<=[(,]\\s*)${vars[0]}(?=\\s*[,)])`), v);
}
