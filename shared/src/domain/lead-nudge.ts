import type { LeadInfo, PendingAction } from '../contracts/conversations';

/**
 * The nudge to a lead who has gone quiet (follow #20): a short check-in on the channel and in the thread of
 * our last reply to them (the send that made them "invited" / "waiting on lead"), so it lands where their
 * answer would. Pure: the caller finds that send and proposes the result as a card; a person approves it.
 * No sign-off here: the person's signature or the team's sign-off lesson is added by the one styling
 * function (domain/draft-style.ts), as on any draft.
 */
export interface NudgeDraft {
  name: 'send_message' | 'send_email';
  args: Record<string, unknown>;
  reason: string;
  /** Sent only while the lead is still in this state (checked again when the card is approved). */
  whileLead?: { state: LeadInfo['state']; since: string };
}

export function nudgeDraft(
  lastSend: Pick<PendingAction, 'tool' | 'args'>,
  lead: { name: string; invited: boolean; property?: string },
): NudgeDraft | undefined {
  const first = lead.name.split(/\s+/)[0] || 'there';
  const place = lead.property ? `the apartment at ${lead.property}` : 'the apartment';
  const ask = lead.invited
    ? `are you still interested in a showing of ${place}? If so, just tell us a day and time that works for you.`
    : `did you have any other questions about ${place}? We are happy to help.`;
  const reason = `Nudge ${lead.name}: no answer since our last ${lead.invited ? 'invitation' : 'reply'}`;
  const to = lastSend.args.to;
  if (lastSend.tool === 'send_message' && typeof to === 'string')
    return { name: 'send_message', args: { to, text: `Hi ${first}, just checking in: ${ask}` }, reason };
  if (lastSend.tool !== 'send_email' || typeof to !== 'string') return undefined;
  const subject = String(lastSend.args.subject ?? '');
  return {
    name: 'send_email',
    args: {
      to,
      subject: subject && !/^re:/i.test(subject) ? `Re: ${subject}` : subject || `Following up, ${first}`,
      body: `Hi ${first},\n\nJust checking in: ${ask}`,
      ...(typeof lastSend.args.threadId === 'string' ? { threadId: lastSend.args.threadId } : {}),
      ...(typeof lastSend.args.inReplyTo === 'string' ? { inReplyTo: lastSend.args.inReplyTo } : {}),
    },
    reason,
  };
}
