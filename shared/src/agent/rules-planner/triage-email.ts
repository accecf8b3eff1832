import { extractEmails } from '../../domain/extract';
import { triageLead } from '../lead-triage';
import { classLine, emailReply, factsFor, factsLine, greeting } from '../rules-triage';
import type { Plan, PlannerInput, Trigger } from '../types';
import { find, firstContact, lookalikeHint, memoryText, outcome, slotsOf } from './helpers';
import { questionKeywords, teamQuestion } from './intents/team-question';
import { followSkill, loadedSkill, skillRead, skillSaysNoReply } from './skill';

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

/** An inbound email: leads go to lead triage; automated and bulk mail is left alone; people get a reply. */
export function triageEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  if (t.team) return teamEmail(input, t);
  // An emergency by email pages on-call first, as a text does (the paging budget applies in the tool).
  if (t.urgent && input.hasTool('escalate') && !find(input.observations, 'escalate'))
    return {
      kind: 'calls',
      calls: [
        {
          name: 'escalate',
          args: {
            reason: `Urgent email from ${e.from}${t.triage?.kind ? ` (${t.triage.kind} emergency)` : ''}`,
            from: extractEmails(e.from)[0] ?? e.from,
            text: `${e.subject}\n${e.text}`.slice(0, 500),
          },
          reason: `The email reads as an emergency: page the on-call person · ${classLine(t.triage)}`,
        },
      ],
    };
  // Listing sites often send leads from no-reply addresses with the lead's own address inside.
  if (t.lead && (t.lead.state === 'showing_booked' || t.lead.state === 'disqualified'))
    return { kind: 'no_action', reason: `lead is ${t.lead.state.replace('_', ' ')}: no reply (seed rule)` };
  if (e.source === 'leads' || t.triage?.triageClass === 'lead') return triageLead(input, t);
  if (AUTOMATED.test(e.from)) return { kind: 'no_action', reason: `automated email from ${e.from}` };
  // Newsletters and promotions end here: logged as NO_ACTION_NEEDED, no conversation, no card.
  if (t.triage?.triageClass === 'bulk') return { kind: 'no_action', reason: `bulk email from ${e.from}` };
  // A thank-you closes the thread, as a closing text does.
  if (t.triage?.triageClass === 'thanks')
    return { kind: 'no_action', reason: `closing email from ${e.from}` };
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
  // A phishing mail is shown to the team, never answered.
  if (t.triage?.triageClass === 'scam')
    return {
      kind: 'respond',
      text: `Email from ${name}: “${e.subject}” reads as a scam or phishing (${classLine(t.triage)}). I drafted no reply — don't open its links or attachments.`,
    };
  if (!input.hasTool('send_email')) {
    return {
      kind: 'respond',
      text: `Email from ${name}: “${e.subject}”. Email replies are not configured, so I drafted none.`,
    };
  }
  const send = find(obs, 'send_email');
  if (!send)
    return draftReply(input, t, { name, address, mightBe, role: firstContact(lookup)?.role ?? undefined });
  const esc = find(obs, 'escalate');
  const escNote = esc ? ` ${outcome(esc, 'The on-call person was paged.', 'page the on-call person')}` : '';
  return {
    kind: 'respond',
    text: `Email from ${name}: “${e.subject}”. ${outcome(send, 'The reply was sent in its thread.', 'send the reply')}${escNote}`,
  };
}

/**
 * The reply to an outside email, by class: read the team's notes (and the calendar's free times for a
 * viewing) in one round, then answer with what they say — or say plainly that a person will.
 */
function draftReply(
  input: PlannerInput,
  t: Extract<Trigger, { kind: 'inbound_email' }>,
  who: { name: string; address: string; mightBe: string; role?: string | undefined },
): Plan {
  const e = t.email;
  const obs = input.observations;
  const read = find(obs, 'read_file');
  const reads = [
    ...(t.triage && input.hasTool('read_file') && !read
      ? [{ name: 'read_file', args: { path: 'MEMORY.md' }, reason: 'Look up what the team knows' }]
      : []),
    ...(t.triage?.triageClass === 'showing' &&
    input.hasTool('find_free_slots') &&
    !find(obs, 'find_free_slots')
      ? [{ name: 'find_free_slots', args: {}, reason: 'Find free showing times on the calendar' }]
      : []),
    ...skillRead(input, 'inbound_email'),
  ];
  if (reads.length) return { kind: 'calls', calls: reads };
  const skill = loadedSkill(input);
  const skip = skillSaysNoReply(skill, t.triage?.triageClass);
  if (skip) return { kind: 'no_action', reason: skip };
  const facts = factsFor(t.triage, read?.status === 'ok' ? memoryText(read.result) : '');
  const name = who.name.includes('@') ? undefined : who.name;
  const { text: body, note } = followSkill(
    emailReply(t.triage, name, { facts, slots: slotsOf(obs), paged: paged(find(obs, 'escalate')) }),
    skill,
    t.triage?.triageClass,
  );
  const why = `${classLine(t.triage, who.role)}${factsLine(t.triage, facts, read !== undefined)}`;
  return {
    kind: 'calls',
    calls: [
      {
        name: 'send_email',
        args: {
          to: who.address,
          subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
          body,
          threadId: e.threadId,
          ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
        },
        reason: `Answer ${who.name}'s email${who.mightBe}${why ? ` · ${why}` : ''}${note}`,
      },
    ],
  };
}

/** Whether the page went out (executed, or allowed as a plain call). */
const paged = (o: ReturnType<typeof find>) => o?.status === 'executed' || o?.status === 'ok';

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
