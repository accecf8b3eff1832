import type { Conversation, LeadInfo, LeadState } from '../contracts/conversations';
import type { EventEnvelope, EventOf } from '../contracts/events';
import { whenText } from '../domain/followups';
import { leadCheckStamp, leadCheckTimerName } from '../domain/lead-check';
import { nudgeDraft } from '../domain/lead-nudge';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { EventQueue } from '../ports/event-queue';
import type { Timers } from '../ports/timers';
import { draftLeadNudge, type NudgeDeps } from './draft-lead-nudge';
import type { AgentOutcome } from './run-event-group';
import { leadStateAfterInbound, NO_REPLY_STATES, setLeadState } from './set-lead-state';

/**
 * Lead state from everything that happens on the line (follow #20), not only lead emails: a lead's text or
 * call puts the ball in our court; our sent reply puts it in theirs (an invitation to a showing → invited);
 * a calendar event made in the lead's conversation → showing booked. Each move sets one check on the Timers
 * port: a lead we invited (or answered) who stays silent for NUDGE_HOURS is put to the team as "nudge?",
 * and a lead waiting on us for FLAG_HOURS is flagged. A check whose state has moved on does nothing.
 */
export interface LeadTrackingDeps {
  conversations: ConversationStore;
  actions: ActionStore;
  audit: AuditLog;
  queue: EventQueue;
  clock: () => Date;
  cardTimers?: { timers?: Timers };
  settings: { timezone: string };
}

/** Two days of silence after an invitation or answer: the seed's "lead not answered in 2 days". */
export const NUDGE_HOURS = 48;
/** A lead who wrote and has had no answer for half a working day is flagged to the team. */
export const FLAG_HOURS = 4;

/** A sent text that asks the lead to come and see the place reads as an invitation. */
const INVITATION =
  /\b(showing|tour|viewing|view the|come (?:see|by|take a look)|open house|walk-?through|see the (?:unit|apartment|place|home))\b/i;

const SENDS = new Set(['send_message', 'send_email', 'reply_email']);

/** A lead (known lead, or one the classifier just called a lead) wrote or called us. */
export async function leadWroteUs(
  deps: LeadTrackingDeps,
  input: {
    conversationId: string;
    before: LeadInfo | undefined;
    isLead: boolean;
    by: string;
    /** The property their message names (domain/lead-property.ts), kept with the move; the first one stays. */
    property?: string;
  },
): Promise<void> {
  if (!input.isLead && !input.before) return;
  const next = leadStateAfterInbound(input.before);
  if (!next || !(await deps.conversations.get(input.conversationId))) return;
  await moveLead(deps, input.conversationId, next, input.by, input.before?.property ?? input.property);
}

/** After a decided card ran: a reply sent to a lead or a showing put on the calendar moves the lead. */
export async function leadAfterAction(
  deps: LeadTrackingDeps,
  input: { conversationId: string; actionId: string },
): Promise<void> {
  const action = await deps.actions.get(input.conversationId, input.actionId);
  if (action?.status !== 'EXECUTED') return;
  const conv = await deps.conversations.get(input.conversationId);
  if (!conv?.lead || NO_REPLY_STATES.has(conv.lead.state)) return;
  let next: LeadState | undefined;
  if (action.tool === 'create_calendar_event') next = 'showing_booked';
  else if (SENDS.has(action.tool)) {
    const text = String(action.args.text ?? action.args.body ?? '');
    next = INVITATION.test(text) ? 'invited' : 'waiting_on_lead';
  }
  if (next && next !== conv.lead.state)
    await moveLead(deps, conv.id, next, 'switchboard', conv.lead.property);
}

/** New and waiting-on-us leads wait for us (flag); invited and answered leads owe us an answer (nudge). */
function checkAfterHours(state: LeadState): number {
  if (state === 'new' || state === 'waiting_on_us') return FLAG_HOURS;
  if (state === 'invited' || state === 'waiting_on_lead') return NUDGE_HOURS;
  return 0;
}

async function moveLead(
  deps: LeadTrackingDeps,
  conversationId: string,
  state: LeadState,
  by: string,
  property: string | undefined,
) {
  // The property rides on the move's own write: knowing it never costs a lead turn a request.
  const lead = await setLeadState(deps, { conversationId, state, by, ...(property ? { property } : {}) });
  const hours = checkAfterHours(state);
  const timers = deps.cardTimers?.timers;
  if (!hours || !timers) return;
  const at = new Date(Date.parse(lead.updatedAt) + hours * 3600_000);
  const stamp = leadCheckStamp(conversationId, lead.updatedAt);
  const event: EventEnvelope = {
    id: `timer_lead_${stamp}`,
    type: 'timer.fired',
    correlationId: `conv:${conversationId}`,
    key: `lead:${conversationId}`,
    occurredAt: at.toISOString(),
    payload: {
      kind: 'lead.check',
      conversationId,
      actionId: `lead_${stamp}`,
      runId: `lead_${stamp}`,
      dueAt: at.toISOString(),
      leadSince: lead.updatedAt,
    },
  };
  await timers.scheduleAt(leadCheckTimerName(conversationId, lead.updatedAt), at, event);
}

/**
 * The check came due (`timer.fired`, kind `lead.check`). If the lead's state is the one it was set for, the
 * team is told: "waiting on us" for an unanswered lead, by push (the assigned person's devices when the
 * conversation has an assignee). A silent lead gets a drafted nudge — a card on the channel of our last reply
 * (use-cases/draft-lead-nudge.ts), approved like any reply; the card's own push announces it. With nothing to
 * answer on (no reply of ours was sent) or a draft already waiting, the team is asked by push instead.
 */
export async function runLeadCheck(
  deps: LeadTrackingDeps & { drafting?: NudgeDeps },
  event: EventOf<'timer.fired'>,
): Promise<AgentOutcome> {
  const p = event.payload;
  const conv = await deps.conversations.get(p.conversationId);
  const lead = conv?.lead;
  if (!conv || !lead || lead.updatedAt !== p.leadSince)
    return { outcome: 'lead moved on since the check was set' };
  const message = checkMessage(conv, lead, deps.settings.timezone);
  if (!message) return { outcome: `lead is ${lead.state}: nothing to flag` };
  const nudge = message.nudge && deps.drafting ? await nudgeCall(deps, conv, lead) : undefined;
  await deps.conversations.appendMessage({
    id: `m_${event.id}`,
    conversationId: conv.id,
    role: 'system',
    text: nudge
      ? `${message.text.split('. ')[0]}. I drafted a short nudge below: approve it to send.`
      : message.text,
    createdAt: deps.clock().toISOString(),
    author: { kind: 'assistant', name: 'Switchboard' },
  });
  if (nudge && deps.drafting) return draftLeadNudge(deps.drafting, conv, nudge, event);
  await deps.queue.send({
    id: `notify_${event.id}`,
    type: 'notify',
    correlationId: event.correlationId,
    key: `notify:${conv.id}`,
    occurredAt: deps.clock().toISOString(),
    payload: {
      kind: 'alert',
      conversationId: conv.id,
      title: message.title,
      body: message.text,
      ...(conv.assignee ? { userId: conv.assignee } : {}),
    },
  });
  return { outcome: message.title };
}

/** The nudge to draft: on our last sent reply's channel, unless a draft is already waiting for a person. */
async function nudgeCall(deps: LeadTrackingDeps, conv: Conversation, lead: LeadInfo) {
  const cards = await deps.actions.listByConversation(conv.id);
  if (cards.some((a) => a.status === 'PENDING')) return undefined;
  const last = cards
    .filter((a) => a.status === 'EXECUTED' && SENDS.has(a.tool))
    .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt))
    .at(-1);
  if (!last) return undefined;
  const draft = nudgeDraft(last, {
    name: conv.contact?.name ?? conv.title,
    invited: lead.state === 'invited',
    ...(lead.property ? { property: lead.property } : {}),
  });
  // The lead may answer (or a person book them) while the card waits: the approval re-checks this.
  return draft && { ...draft, whileLead: { state: lead.state, since: lead.updatedAt } };
}

function checkMessage(conv: Conversation, lead: LeadInfo, timezone: string) {
  const who = conv.contact?.name ?? conv.title;
  const since = whenText(lead.updatedAt, timezone);
  if (lead.state === 'waiting_on_us' || lead.state === 'new')
    return {
      title: `Lead waiting on us: ${who}`.slice(0, 120),
      text: `${who} has been waiting on us since ${since}. Reply here, or ask me to draft an answer.`,
    };
  if (lead.state === 'invited' || lead.state === 'waiting_on_lead')
    return {
      nudge: true,
      title: `Nudge ${who}?`.slice(0, 120),
      text: `${who} has not answered since ${since} (${lead.state === 'invited' ? 'invited to a showing' : 'we replied'}). Ask me to text or email a short nudge — it comes back as a card to approve.`,
    };
  return undefined;
}
