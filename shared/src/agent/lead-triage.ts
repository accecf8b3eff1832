import { DateTime } from 'luxon';
import { extractLead, type LeadDetails } from '../domain/lead-extract';
import { openQuestions, unansweredNote } from '../domain/open-questions';
import { slotsSentence } from '../domain/showing-slots';
import { slotsOf } from './rules-planner/helpers';
import type { Observation, Plan, PlannedCall, PlannerInput, PolicyBasis, Trigger } from './types';

/**
 * The rules planner's answer to a leads email (SPEC §3.1, §3.6). Primary course: identify the lead and ask
 * the policy — through `ask_policy`, a guarded read like any other — whether the lead qualifies and, if not,
 * why; then draft the reply the answer calls for, with the answer's derivation as the card's "why":
 * qualified → invite to a showing; disqualified → a polite decline; undecided → ask the lead for exactly
 * what the policy is missing, or (when only the team can answer, e.g. a credit review) a holding reply,
 * with the open questions on the card. Every draft waits for a person.
 *
 * The lead's facts were recorded from the email before the run (lead-intake.ts); this planner re-reads the
 * email only for the greeting, the unit and the reply address.
 */

export const QUALIFIED_QUERY = 'qualified_lead(lead_of_interest)';
export const DISQUALIFIED_QUERY = 'disqualified(lead_of_interest, Reason)';

/** The parts of `qualified_lead` in the shipped rules; a team rulebase without them just answers less. */
const PARTS = ['credit_ok(lead_of_interest)', 'pets_ok(lead_of_interest)'];

/**
 * Askable predicates the lead can answer themselves (the policy's other questions are for the team), with the
 * query whose derivation shows what the email established about them.
 */
const ASK_THE_LEAD: Record<string, { query: string; ask: string; inline: string }> = {
  credit_score: {
    query: 'credit_score(lead_of_interest, Score)',
    ask: 'your approximate credit score',
    inline: 'your approximate credit score',
  },
  pet: {
    query: 'pet(lead_of_interest, Kind)',
    ask: 'whether you have any pets, and if so what kind',
    inline: 'whether you have any pets (and what kind)',
  },
};

/** How a `disqualified` reason reads in a reply; reasons the team adds later read generically. */
const REASON_TEXT: Record<string, string> = {
  credit_below_600: 'the application does not meet the minimum credit score for this property',
  dog: 'dogs are not allowed at this property',
};

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

interface PolicyAnswer {
  status: string;
  summary?: string;
  answers?: Array<{ bindings?: Record<string, unknown>; why?: string[] }>;
  missing?: { tools?: string[]; focus?: string[]; questions?: Array<{ ask: string; recordAs: string }> };
}

export type Verdict =
  | { kind: 'qualified'; basis: PolicyBasis; summary: string }
  | { kind: 'declined'; reasons: string[]; basis: PolicyBasis; summary: string }
  | { kind: 'needs'; forLead: string[]; forTeam: string[]; basis: PolicyBasis; summary: string }
  | { kind: 'undecided'; basis: PolicyBasis; summary: string };

const asked = (obs: Observation[], query: string) =>
  [...obs].reverse().find((o) => o.name === 'ask_policy' && o.args.query === query);
const last = (obs: Observation[], name: string) => [...obs].reverse().find((o) => o.name === name);

const indent = (lines: string[] | undefined) => (lines ?? []).map((l) => `  ${l}`);

function answerOf(o: Observation | undefined): PolicyAnswer | undefined {
  const r = o?.status === 'ok' ? (o.result as PolicyAnswer | undefined) : undefined;
  return r && typeof r.status === 'string' ? r : undefined;
}

/** Reads the two ask_policy observations into what the draft should do, with the lines the card shows. */
export function leadVerdict(obs: Observation[]): Verdict {
  const qObs = asked(obs, QUALIFIED_QUERY);
  const q = answerOf(qObs);
  const d = answerOf(asked(obs, DISQUALIFIED_QUERY));
  if (!q) {
    const why = qObs
      ? `The policy could not be asked: ${qObs.error ?? 'no answer'}`
      : 'The policy was not asked (ask_policy is not available).';
    return { kind: 'undecided', basis: { why: [why] }, summary: 'not assessed by the policy' };
  }
  const out = d?.answers ?? [];
  if (out.length) return declinedVerdict(out);
  if (q.status === 'proved') {
    return {
      kind: 'qualified',
      summary: 'qualified',
      basis: { why: [`Policy answer: ${QUALIFIED_QUERY} holds`, ...indent(q.answers?.[0]?.why)] },
    };
  }
  if (q.status === 'failed') {
    return {
      kind: 'declined',
      reasons: [],
      summary: 'not qualified',
      basis: { why: [`Policy answer: ${q.summary ?? `${QUALIFIED_QUERY} does not hold`}`] },
    };
  }
  // The solver stops at an open question: what is missing, and from whom.
  if (q.status === 'blocked') return needsVerdict(q, obs);
  return {
    kind: 'undecided',
    summary: 'not decided by the policy',
    basis: { why: [`Policy answer: ${q.summary ?? q.status}`] },
  };
}

/** Every reason the policy derived `disqualified`, each with its derivation for the card. */
function declinedVerdict(out: NonNullable<PolicyAnswer['answers']>): Verdict {
  const reasons = out.map((a) => String(a.bindings?.Reason ?? 'unknown'));
  return {
    kind: 'declined',
    reasons,
    summary: `not qualified (${reasons.join(', ')})`,
    basis: {
      why: out.flatMap((a) => [
        `Policy answer: ${DISQUALIFIED_QUERY} holds with Reason = ${String(a.bindings?.Reason)}`,
        ...indent(a.why),
      ]),
    },
  };
}

/**
 * The solver stops at the first open question; the qualification's parts name every other one, so the
 * lead is asked once for everything and the team sees all of its open questions on the one card.
 */
function needsVerdict(q: PolicyAnswer, obs: Observation[]): Verdict {
  const blocked = [q, ...PARTS.map((g) => answerOf(asked(obs, g)))].filter(
    (a): a is PolicyAnswer => a?.status === 'blocked',
  );
  const questions = [
    ...new Map(blocked.flatMap((a) => a.missing?.questions ?? []).map((x) => [x.ask, x])).values(),
  ];
  const missing = {
    tools: [
      ...new Set(
        blocked.flatMap((a) => [
          ...(a.missing?.tools ?? []),
          ...(a.missing?.focus ?? []).map((f) => `set_focus(name: ${f})`),
        ]),
      ),
    ],
    questions: questions.map((x) => x.ask),
  };
  const pred = (x: { recordAs: string }) => x.recordAs.split('(')[0]?.trim() ?? '';
  const forLead = new Set(questions.map(pred).filter((p) => p in ASK_THE_LEAD));
  const established = Object.values(ASK_THE_LEAD).flatMap(({ query }) => {
    const a = answerOf(asked(obs, query));
    return a?.status === 'proved' ? (a.answers ?? []).flatMap((x) => indent(x.why)) : [];
  });
  return {
    kind: 'needs',
    forLead: Object.keys(ASK_THE_LEAD).filter((p) => forLead.has(p)),
    forTeam: questions.filter((x) => !(pred(x) in ASK_THE_LEAD)).map((x) => x.ask),
    summary: `undecided — needs ${missing.questions.join(' ') || missing.tools.join(', ') || 'more facts'}`,
    basis: {
      why: [
        `Policy answer: ${q.summary ?? `${QUALIFIED_QUERY} cannot be decided yet`}`,
        ...(established.length ? ['Established so far:', ...established] : []),
      ],
      missing,
      questions: questions.filter((x) => !(pred(x) in ASK_THE_LEAD)),
    },
  };
}

/**
 * The invitation's question: the calendar's free showing times when find_free_slots answered (so the lead
 * picks one instead of a round of "which day suits you?"), else an open question. The redraft rules
 * (redraft-rules.ts `withWhen`) replace either with the day and time a person names.
 */
function showingAsk(slots: readonly { label: string }[]): string {
  return slots.length
    ? `We have openings on ${slotsSentence(slots)}. Which of these times would work for you for a showing?`
    : 'Which days and times would work for you for a showing?';
}

function draft(
  v: Verdict,
  lead: LeadDetails,
  first: string,
  { timezone, slots, open }: { timezone: string; slots: readonly { label: string }[]; open: string[] },
): { body: string; reason: string } {
  const unit = lead.property ? `the apartment at ${lead.property}` : 'our rental';
  // What the reply cannot answer is said plainly before the signature.
  const more = unansweredNote(open).replace(/^ /, '\n\n');
  const sign = `${more}\n\nBest regards,\nThe leasing team`;
  const hi = `Hi ${first},\n\nThank you for your interest in ${unit}.`;
  switch (v.kind) {
    case 'qualified': {
      // Only a date we parsed is repeated back, never the lead's own words.
      const moveIn = lead.moveIn?.date
        ? ` ahead of your move-in around ${DateTime.fromISO(lead.moveIn.date, { zone: timezone }).toFormat('LLLL d')}`
        : '';
      return {
        body: `${hi} Based on the details you shared, you meet our rental criteria, and we would be glad to show you the unit${moveIn}.\n\n${showingAsk(slots)}${sign}`,
        reason: `Invite a qualified lead to book a showing${slots.length ? ', offering the free times on the calendar' : ''}`,
      };
    }
    case 'declined': {
      const why = declineReasons(v);
      return {
        body: `${hi} Unfortunately, we are not able to move forward with your application${why.length ? `: ${why.join(', and ')}` : ' at this time'}.\n\nWe appreciate you considering us and wish you the best in your search.${sign}`,
        reason: `Decline a lead the policy does not qualify${v.reasons.length ? ` (${v.reasons.join(', ')})` : ''}`,
      };
    }
    case 'needs': {
      if (v.forLead.length) {
        const items = leadAsks(v)
          .map((a) => `- ${a}`)
          .join('\n');
        return {
          body: `${hi} Before we schedule a showing, could you tell us:\n\n${items}${sign}`,
          reason: `Ask the lead for what the policy still needs (${v.forLead.join(', ')})${v.forTeam.length ? '; the team must also answer the questions below' : ''}`,
        };
      }
      return {
        body: `${hi} We have received your details, and a member of our team is reviewing them. We will get back to you shortly about a showing.${sign}`,
        reason: 'Hold the lead: the policy needs a person to answer the questions below before it can decide',
      };
    }
    case 'undecided':
      return {
        body: `${hi} To get you set up for a showing, could you tell us your approximate credit score, your move-in date, and whether you have any pets?${sign}`,
        reason: 'Reply to a new rental lead (the policy did not decide; see why)',
      };
  }
}

export function triageLead(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  const obs = input.observations;
  const lead = extractLead(
    { from: e.from, subject: e.subject, text: e.text, date: e.date },
    { timezone: input.timezone },
  );
  const lookup = last(obs, 'search_contacts');
  if (!lookup) return { kind: 'calls', calls: firstCalls(input, lead) };
  // The contact search is fuzzy ("ana.ruiz@…" finds maria.lopez@…): only a contact with this very address is the lead.
  const contact = (
    lookup.result as { contacts?: Array<{ name?: string; emails?: string[] }> } | undefined
  )?.contacts?.find((c) => c.emails?.some((a) => a.toLowerCase() === lead.email));
  const name = contact?.name ?? lead.name;
  const who = name ? `${name} (${lead.email})` : lead.email;
  const verdict = leadVerdict(obs);
  const service = lead.assistanceAnimal
    ? ' The lead mentions a service or support animal: that is not a pet under fair-housing rules, so a person should handle it.'
    : '';
  if (!input.hasTool('send_email')) {
    return {
      kind: 'respond',
      text: `New lead ${who}: ${verdict.summary}. Email replies are not configured, so I drafted none.${service}`,
    };
  }
  if (AUTOMATED.test(lead.email)) {
    return {
      kind: 'respond',
      text: `New lead “${e.subject}”: ${verdict.summary}, but the email gives no address to answer the lead at (only ${lead.email}), so I drafted no reply.${service}`,
    };
  }
  const send = last(obs, 'send_email');
  if (!send) {
    // A decline invites no more questions; any other reply names the ones it cannot answer.
    const open = verdict.kind === 'declined' ? [] : openQuestions([e.text]);
    const { body, reason } = draft(verdict, lead, name?.split(/\s+/)[0] ?? 'there', {
      timezone: input.timezone,
      slots: slotsOf(obs),
      open,
    });
    const left = open.length ? ` Left for a person: ${open.map((q) => `“${q}”`).join(', ')}.` : '';
    return {
      kind: 'calls',
      calls: [replyCall(e, lead, body, `${reason}.${left}${service}`, verdict.basis)],
    };
  }
  return { kind: 'respond', text: `New lead ${who}: ${verdict.summary}. ${sentResult(send)}${service}` };
}

/**
 * Identify the lead, ask the policy everything the verdict reads and the calendar for free showing times
 * (offered if the lead qualifies), in one batch of guarded reads: one round, whatever the verdict.
 */
function firstCalls(input: PlannerInput, lead: LeadDetails): PlannedCall[] {
  return [
    { name: 'search_contacts', args: { query: lead.email, limit: 3 }, reason: 'Identify the lead' },
    ...(input.hasTool('find_free_slots')
      ? [{ name: 'find_free_slots', args: {}, reason: 'Free showing times to offer if the lead qualifies' }]
      : []),
    ...leadPolicyCalls(input, 'the email'),
  ];
}

/**
 * The policy reads every verdict needs (does the lead qualify, if not why, each open question, what the
 * message established), once per run; none without the tool. `from` names the message in the reasons.
 */
export function leadPolicyCalls(input: PlannerInput, from: string): PlannedCall[] {
  if (!input.hasTool('ask_policy') || asked(input.observations, QUALIFIED_QUERY)) return [];
  return [
    { name: 'ask_policy', args: { query: QUALIFIED_QUERY }, reason: 'Does the lead qualify?' },
    { name: 'ask_policy', args: { query: DISQUALIFIED_QUERY }, reason: 'If not, why not?' },
    ...PARTS.map((query) => ({
      name: 'ask_policy',
      args: { query },
      reason: 'Every open question of the qualification',
    })),
    ...Object.values(ASK_THE_LEAD).map((a) => ({
      name: 'ask_policy',
      args: { query: a.query },
      reason: `What ${from} established about the lead`,
    })),
  ];
}

/** A decline's reasons as a reply says them ("dogs are not allowed at this property"); unknown ones omitted. */
export const declineReasons = (v: Extract<Verdict, { kind: 'declined' }>) =>
  v.reasons.map((r) => REASON_TEXT[r]).filter((r): r is string => Boolean(r));

/** What the lead is asked for: as an email's list item, or `inline` within a text's one sentence. */
export const leadAsks = (v: Extract<Verdict, { kind: 'needs' }>, form: 'ask' | 'inline' = 'ask') =>
  v.forLead.map((p) => ASK_THE_LEAD[p]?.[form]).filter((a): a is string => Boolean(a));

function replyCall(
  e: Extract<Trigger, { kind: 'inbound_email' }>['email'],
  lead: LeadDetails,
  body: string,
  reason: string,
  policy: PolicyBasis,
): PlannedCall {
  return {
    name: 'send_email',
    args: {
      to: lead.email,
      // The listing's own subject keeps the reply in its thread (Gmail threads by subject and
      // References), so the lead's answer lands in this conversation, next to the facts recorded here.
      subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
      body,
      threadId: e.threadId,
      ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
    },
    reason,
    policy,
  };
}

function sentResult(send: Observation): string {
  if (send.status === 'executed') return 'The reply was sent in its thread.';
  if (send.status === 'denied')
    return `The reply was not sent${send.error ? ` (reason: ${send.error})` : ''}.`;
  return `The reply could not be sent: ${send.error ?? send.status}.`;
}
