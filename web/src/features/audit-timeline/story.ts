import type { ConversationDetail } from '../../../../shared/src/contracts/api';
import type { AuditEvent } from '../../../../shared/src/contracts/conversations';
import { humanize } from '../../lib/format';

/** One point of the picture: what happened, who did it, and how it looked (the dot's colour). */
export interface StoryPoint {
  id: string;
  at: string;
  label: string;
  who?: string;
  detail?: string;
  tone: 'in' | 'agent' | 'person' | 'done' | 'bad';
}

const SENDS = new Set(['send_message', 'send_sms', 'send_email', 'reply_email']);

/** A person's name where the conversation knows it (cards record who decided by email and name). */
function namer(detail: ConversationDetail) {
  const names = new Map<string, string>();
  for (const a of detail.actions) if (a.decidedBy && a.decidedByName) names.set(a.decidedBy, a.decidedByName);
  return (actor: string) =>
    actor === 'switchboard' || actor === 'system' ? 'Switchboard' : (names.get(actor) ?? actor);
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Audit types in words; anything not listed is shown by its own name, so nothing is hidden. */
function describe(e: AuditEvent, detail: ConversationDetail): Pick<StoryPoint, 'label' | 'tone' | 'detail'> {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const tool = str(d.tool);
  const card = detail.actions.find((a) => a.id === str(d.actionId));
  const what = card?.summary ?? (tool ? humanize(tool) : undefined);
  const withWhat = (label: string, tone: StoryPoint['tone']) => ({
    label,
    tone,
    ...(what ? { detail: what } : {}),
  });
  switch (e.type) {
    case 'action.proposed':
    case 'approval.requested':
      return withWhat('Drafted for approval', 'agent');
    case 'action.auto_approved':
      return withWhat('Allowed by the team’s rules', 'agent');
    case 'approval.approved':
      return withWhat('Approved', 'person');
    case 'approval.denied':
      return withWhat('Denied', 'person');
    case 'action.executed':
      return withWhat(
        tool === 'escalate' ? 'On-call paged' : tool && SENDS.has(tool) ? 'Sent' : 'Done',
        'done',
      );
    case 'action.reconciled':
      return withWhat('Confirmed with the provider', 'done');
    case 'action.failed':
      return withWhat('Failed', 'bad');
    case 'action.expired':
      return withWhat('Expired without a decision', 'bad');
    case 'card.superseded':
      return withWhat('Withdrawn (out of date)', 'agent');
    case 'card.redraft':
      return withWhat('Redraft asked', 'person');
    case 'card.answered':
      return withWhat('Question answered', 'person');
    case 'run.response':
      return { label: 'Answered', tone: 'agent' };
    case 'run.error':
    case 'run.dead_lettered':
      return { label: 'Stopped with an error', tone: 'bad' };
    case 'conversation.status_changed':
      return { label: `Marked ${str(d.to) ?? 'changed'}`, tone: 'person' };
    case 'message.in':
      return { label: 'Wrote in the app', tone: 'person' };
    default:
      return { label: humanize(e.type.replace('.', ' ')), tone: 'agent' };
  }
}

/**
 * The conversation's story from its audit trail and its inbound messages: received → triaged → drafted →
 * approved by Sam → sent, oldest first.
 */
export function buildStory(detail: ConversationDetail, events: AuditEvent[]): StoryPoint[] {
  const who = namer(detail);
  const c = detail.conversation;
  const points: StoryPoint[] = detail.messages
    .filter((m) => m.role === 'inbound')
    .map((m) => ({
      id: m.id,
      at: m.createdAt,
      label: m.channel === 'email' ? 'Email received' : 'Text received',
      who: m.author.name,
      detail: m.text.split('\n')[0]?.slice(0, 120) ?? '',
      tone: 'in' as const,
    }));
  if (c.urgent) {
    points.push({
      id: 'urgent',
      at: c.urgent.at,
      label: 'Triaged urgent',
      tone: 'bad',
      detail: c.urgent.reason,
    });
  }
  for (const e of events) {
    const person = e.actor !== 'switchboard' && e.actor !== 'system';
    points.push({ id: e.id, at: e.at, ...describe(e, detail), ...(person ? { who: who(e.actor) } : {}) });
  }
  return points.sort((a, b) => a.at.localeCompare(b.at));
}
