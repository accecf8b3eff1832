import type { LeadState, PendingAction } from '../contracts/conversations';
import { whenText } from '../domain/followups';
import type { ConversationStore } from '../ports/conversation-store';
import { capOutput } from '../tools/tool';
import { executeApprovedAction } from './execute-action';
import type { RunContext } from './run-context';
import type { CallScope } from './tool-step';
import type { Observation } from './types';

/**
 * "Urgent · on-call paged at 14:02" (inbox #19): the page went out, so the conversation says when. In a turn
 * the conversation is the one the turn holds, so this is folded into the turn's own write.
 */
async function markPaged(
  deps: { conversations: ConversationStore; clock: () => Date },
  conversationId: string,
  action: PendingAction,
) {
  const at = deps.clock().toISOString();
  const c = await deps.conversations.get(conversationId);
  const reason = typeof action.args.reason === 'string' ? action.args.reason : action.summary;
  await deps.conversations.setInboxFields(conversationId, {
    urgent: { ...(c?.urgent ?? { at, reason }), pagedAt: at },
  });
}

/**
 * An unknown number added as a contact (issue 17): the conversation, titled by the bare number until now, is
 * called by the name the card gave it (as edited by whoever approved), the way the contact list now knows it.
 * Without a name nothing changes. In a turn this joins the turn's own write.
 */
async function nameWelcomed(
  deps: { conversations: ConversationStore },
  conversationId: string,
  action: PendingAction,
) {
  const name = typeof action.args.name === 'string' ? action.args.name.trim() : '';
  const c = await deps.conversations.get(conversationId);
  if (!name || !c?.contact || c.contact.name !== c.contact.phone) return;
  await deps.conversations.setThreadFields(conversationId, { title: name, contact: { ...c.contact, name } });
}

/**
 * A decided card, one durable `tool_result` step: denied or expired becomes an observation the planner
 * answers; approved is executed exactly once (execute-action.ts) and its result shown in the conversation.
 */
export function approvedStep(ctx: RunContext, action: PendingAction, scope: CallScope): Promise<Observation> {
  const { deps } = ctx;
  const { base } = scope;
  return ctx.durable.step('tool_result', async () => {
    if (action.status === 'DENIED' || action.status === 'EXPIRED' || action.status === 'SUPERSEDED') {
      return {
        ...base,
        actionId: action.id,
        status: 'denied' as const,
        ...(action.denyReason || action.supersededReason
          ? { error: action.denyReason ?? action.supersededReason }
          : {}),
      };
    }
    const withdrawn = await withdrawIfLeadMoved(ctx, action);
    if (withdrawn) return { ...base, actionId: action.id, status: 'denied' as const, error: withdrawn };
    const exec = await executeApprovedAction(
      { ...deps, staleExecutingMs: deps.settings.staleExecutingMs },
      { conversationId: ctx.convId, actionId: action.id },
      scope.toolCtx,
    );
    if (exec.ok && action.tool === 'escalate') await markPaged(deps, ctx.convId, action);
    if (exec.ok && action.tool === 'welcome_contact') await nameWelcomed(deps, ctx.convId, action);
    await deps.conversations.appendMessage({
      id: `m_${action.id}_result`,
      conversationId: ctx.convId,
      role: 'tool',
      text: exec.ok ? `Done: ${action.summary}` : `Failed: ${action.summary} — ${exec.error}`,
      createdAt: deps.clock().toISOString(),
      author: { kind: 'assistant', name: 'Switchboard' },
      runId: ctx.runId,
      actionId: action.id,
      tool: {
        name: action.tool,
        args: action.args,
        ...(exec.ok ? { result: capOutput(exec.result, 2000) } : { error: exec.error }),
      },
    });
    const done = {
      ...base,
      args: action.args,
      actionId: action.id,
      ...(action.edit ? { edited: true } : {}),
    };
    return exec.ok
      ? { ...done, status: 'executed' as const, result: capOutput(exec.result) }
      : { ...done, status: 'failed' as const, error: exec.error };
  });
}

const LEAD_NOW: Record<LeadState, string> = {
  new: 'is a new lead',
  invited: 'was invited again',
  waiting_on_lead: 'was answered again',
  waiting_on_us: 'is waiting on us',
  showing_booked: 'has a showing booked',
  disqualified: 'is disqualified',
};

/**
 * A lead's nudge approved after the lead moved on — they wrote or called, a person booked or disqualified
 * them, or another reply went out (follow #20): it is not sent. The card is withdrawn with the reason instead
 * of executed, and the run says "Not sent". The conversation is the turn's own partition read (no request).
 * Only a card still APPROVED is withdrawn: a replayed step whose send already started goes on to reconcile.
 */
async function withdrawIfLeadMoved(ctx: RunContext, action: PendingAction): Promise<string | undefined> {
  const hold = action.whileLead;
  if (!hold || action.status !== 'APPROVED') return undefined;
  const { deps } = ctx;
  const conv = await deps.conversations.get(ctx.convId);
  const lead = conv?.lead;
  if (lead?.updatedAt === hold.since && lead.state === hold.state) return undefined;
  const who = conv?.contact?.name ?? conv?.title ?? 'The lead';
  const reason = lead
    ? `${who} ${LEAD_NOW[lead.state]} since ${whenText(lead.updatedAt, deps.settings.timezone)}: the nudge was not sent`
    : `${who} is no longer a lead: the nudge was not sent`;
  const at = deps.clock().toISOString();
  const moved = await deps.actions.transition(ctx.convId, action.id, ['APPROVED'], 'SUPERSEDED', {
    supersededReason: reason,
    updatedAt: at,
  });
  if (!moved) return undefined;
  await deps.audit.append({
    conversationId: ctx.convId,
    type: 'card.superseded',
    actor: 'switchboard',
    at,
    data: { actionId: action.id, tool: action.tool, reason },
  });
  return reason;
}
