import { extractEmails } from '../../domain/extract';
import { triageLead } from '../lead-triage';
import { classLine, greeting } from '../rules-triage';
import type { Plan, PlannerInput, Trigger } from '../types';
import { find, firstContact, lookalikeHint, outcome } from './helpers';
import { questionKeywords, teamQuestion } from './intents/team-question';
import { followSkill, loadedSkill, skillRead, skillSaysNoReply } from './skill';

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

/** An inbound email: leads go to lead triage; automated and bulk mail is left alone; people get a reply. */
export function triageEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  if (t.team) return teamEmail(input, t);
  // Listing sites often send leads from no-reply addresses with the lead's own address inside.
  if (t.lead && (t.lead.state === 'showing_booked' || t.lead.state === 'disqualified'))
    return { kind: 'no_action', reason: `lead is ${t.lead.state.replace('_', ' ')}: no reply (seed rule)` };
  if (e.source === 'leads' || t.triage?.triageClass === 'lead') return triageLead(input, t);
  if (AUTOMATED.test(e.from)) return { kind: 'no_action', reason: `automated email from ${e.from}` };
  // Newsletters and promotions end here: logged as NO_ACTION_NEEDED, no conversation, no card.
  if (t.triage?.triageClass === 'bulk') return { kind: 'no_action', reason: `bulk email from ${e.from}` };
  const obs = input.observations;
  const address = extractEmails(e.from)[0] ?? e.from;
  const lookup = find(obs, 'search_contacts');
  if (!lookup)
    return {
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: address, limit: 1 }, reason: 'Identify the sender' }],
    };
  const name = firstContact(lookup)?.name ?? e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  const mightBe = lookalikeHint(lookup);
  if (!input.hasTool('send_email')) {
    return {
      kind: 'respond',
      text: `Email from ${name}: “${e.subject}”. Email replies are not configured, so I drafted none.`,
    };
  }
  const send = find(obs, 'send_email');
  if (!send) {
    const reads = skillRead(input, 'inbound_email');
    if (reads.length) return { kind: 'calls', calls: reads };
    const skill = loadedSkill(input);
    const skip = skillSaysNoReply(skill, t.triage?.triageClass);
    if (skip) return { kind: 'no_action', reason: skip };
    const { text: body, note } = followSkill(
      `${greeting(name.includes('@') ? undefined : name)}\n\nThank you for your email — we have received it and will get back to you shortly.\n\nBest regards,\nThe team`,
      skill,
      t.triage?.triageClass,
    );
    const why = classLine(t.triage);
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_email',
          args: {
            to: address,
            subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
            body,
            threadId: e.threadId,
            ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
          },
          reason: `Acknowledge ${name}'s email${mightBe}${why ? ` · ${why}` : ''}${note}`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `Email from ${name}: “${e.subject}”. ${outcome(send, 'The reply was sent in its thread.', 'send the reply')}`,
  };
}

/**
 * Mail from one of us (DMARC-authenticated team domain): a request, answered like a team member's text —
 * from the conversations and notes, citing where — but by email, which always goes through a card.
 */
function teamEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  const name = e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  const address = extractEmails(e.from)[0] ?? e.from;
  const keywords = questionKeywords(`${e.subject} ${e.text}`);
  const searched = keywords.length ? teamQuestion.plan(input, { keywords }) : undefined;
  if (searched?.kind === 'calls') return searched;
  const answer =
    searched?.kind === 'respond' ? searched.text : 'I found nothing to search for in this email.';
  if (!input.hasTool('send_email')) {
    return { kind: 'respond', text: `Team email from ${name || address}: “${e.subject}”.\n${answer}` };
  }
  const send = find(input.observations, 'send_email');
  if (!send) {
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_email',
          args: {
            to: address,
            subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
            body: `${greeting(name.includes('@') ? undefined : name || undefined)}\n\n${answer}\n\nSwitchboard`,
            threadId: e.threadId,
            ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
          },
          reason: `Answer ${name || address}'s request (team mail, DMARC pass)`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `Team email from ${name || address}: “${e.subject}”. ${outcome(send, 'The answer was sent in its thread.', 'send the answer')}`,
  };
}
