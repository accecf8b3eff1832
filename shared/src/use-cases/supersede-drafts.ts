import { type CardTimerSettings, cancelCardTimers } from '../agent/card-timers';
import type { Conversation, PendingAction } from '../contracts/conversations';
import type { EventOf } from '../contracts/events';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { Log } from '../ports/logger';
import type { RunStore } from '../ports/run-store';

export interface SupersedeDeps {
  actions: ActionStore;
  conversations: ConversationStore;
  runs: RunStore;
  audit: AuditLog;
  log: Log;
  clock: () => Date;
  /** A withdrawn card's expiry and re-notification schedules are deleted, as a decision deletes them. */
  cardTimers?: CardTimerSettings;
}

const clip = (s: string, n = 80) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n)}…` : one;
};

/**
 * Withdraws the conversation's waiting drafts that `which` picks (cards #18): PENDING → SUPERSEDED with the
 * reason (conditional: a decision that lands first wins), the count lowered, the paused run ended, the
 * conversation told once. Returns the withdrawn cards. Safe to repeat: a card already moved is skipped.
 */
export async function supersedePending(
  deps: SupersedeDeps,
  conversationId: string,
  reason: string,
  which: (a: PendingAction, all: PendingAction[]) => boolean = () => true,
): Promise<PendingAction[]> {
  const all = await deps.actions.listByConversation(conversationId);
  const at = deps.clock().toISOString();
  const done: PendingAction[] = [];
  for (const a of all.filter((x) => x.status === 'PENDING' && which(x, all))) {
    const moved = await deps.actions.transition(conversationId, a.id, ['PENDING'], 'SUPERSEDED', {
      supersededReason: reason,
      updatedAt: at,
    });
    if (!moved) continue;
    done.push(moved);
    await deps.conversations.adjustPending(conversationId, -1);
    const run = await deps.runs.get(conversationId, a.runId);
    if (run?.status === 'awaiting_approval' && run.awaitingActionId === a.id) {
      await deps.runs.update(conversationId, a.runId, {
        status: 'completed',
        awaitingActionId: undefined,
        outcome: `draft withdrawn: ${reason}`.slice(0, 300),
        updatedAt: at,
      });
    }
    await deps.audit.append({
      conversationId,
      type: 'card.superseded',
      actor: 'switchboard',
      at,
      data: { actionId: a.id, tool: a.tool, reason },
    });
  }
  if (done.length) {
    await deps.conversations.appendMessage({
      id: `m_superseded_${done[0]?.id}`,
      conversationId,
      role: 'system',
      text: `Draft withdrawn: ${reason}`,
      createdAt: at,
      author: { kind: 'system', name: 'Switchboard' },
    });
    deps.log.info('cards.superseded', { conversationId, count: done.length, reason });
  }
  // After the withdrawals are written (in a turn, the timers port commits first): a withdrawn card must not
  // expire or re-notify later. Best-effort, as at a decision: a failed delete fires into a no-op.
  for (const a of done) await cancelCardTimers(deps, a.id);
  return done;
}

/**
 * A newer message from outside in a conversation whose reply is still a draft: the draft answers a
 * conversation that has moved on, so it is withdrawn and the new run decides afresh (never two pending
 * drafts for the same reply). Costs nothing when nothing waits (the conversation's own counter says so).
 */
export async function supersedeForNewerInbound(
  deps: SupersedeDeps,
  conversation: Conversation | undefined,
  who: string,
  text: string,
  runId: string,
): Promise<void> {
  if (!conversation || conversation.pendingCount <= 0) return;
  // A redelivered event must not withdraw the card its own run drafted on an earlier attempt.
  await supersedePending(
    deps,
    conversation.id,
    `${who} wrote again before anyone decided: “${clip(text)}”.`,
    (a) => a.runId !== runId,
  );
}

/** The text a card sends, when it is a text or an email. */
const draftText = (a: PendingAction) => String(a.args.text ?? a.args.body ?? '');

/**
 * A text our line sent that Switchboard did not send (`sms.outgoing` / `sms.delivered`, e.g. from the Quo
 * app): the matter was answered by a person, so waiting text drafts to that number are withdrawn. Copies of
 * the texts this conversation's own cards sent are recognised by their words and change nothing.
 */
export async function supersedeForSmsCopy(
  deps: SupersedeDeps,
  event: EventOf<'sms.outgoing'> | EventOf<'sms.delivered'>,
): Promise<{ outcome: string }> {
  const p = event.payload;
  let withdrawn = 0;
  for (const to of p.to) {
    const conv = await deps.conversations.findByTriggerKey(`sms:${to}`);
    if (!conv || conv.pendingCount <= 0) continue;
    const out = await supersedePending(
      deps,
      conv.id,
      `A reply was sent to ${conv.contact?.name ?? to} outside Switchboard (the Quo app): “${clip(p.text)}”.`,
      (a, all) =>
        a.tool === 'send_message' &&
        a.args.to === to &&
        Date.parse(p.createdAt) >= Date.parse(a.createdAt) &&
        !all.some((x) => x.status !== 'PENDING' && x.args.to === to && draftText(x).trim() === p.text.trim()),
    );
    withdrawn += out.length;
  }
  return { outcome: withdrawn ? `withdrew ${withdrawn} draft(s)` : 'no draft waits for this number' };
}

/**
 * Mail the team sent in a thread the assistant is drafting in (the sent-mail poll): the thread was answered
 * by a person, so waiting email drafts in it are withdrawn. Only mail sent after the draft was made counts
 * (the assistant's own earlier replies are in the sent folder too), and a copy of a card's own send is skipped.
 */
export async function supersedeForSentMail(
  deps: SupersedeDeps,
  event: EventOf<'email.sent'>,
): Promise<{ outcome: string }> {
  const p = event.payload;
  const conv = await deps.conversations.findByTriggerKey(`email:${p.threadId}`);
  if (!conv || conv.pendingCount <= 0) return { outcome: 'no draft waits in this thread' };
  const sentAt = Date.parse(p.date) || Date.parse(event.occurredAt);
  const out = await supersedePending(
    deps,
    conv.id,
    `${senderName(p.from)} replied in this thread from Gmail: “${clip(p.subject || p.text)}”.`,
    (a, all) =>
      a.tool === 'send_email' &&
      sentAt >= Date.parse(a.createdAt) &&
      !all.some(
        (x) =>
          x.status !== 'PENDING' &&
          (x.result as { messageId?: string } | undefined)?.messageId === p.messageId,
      ),
  );
  return { outcome: out.length ? `withdrew ${out.length} draft(s)` : 'no email draft to withdraw' };
}

function senderName(from: string): string {
  const name = from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  return name || from.match(/<(.+)>/)?.[1] || from || 'Someone on the team';
}
