import { leadClaims } from '../../domain/lead-extract';
import { describedUnitOf, leadPropertyOf } from '../../domain/lead-property';
import { openQuestions, unansweredNote } from '../../domain/open-questions';
import { slotsSentence } from '../../domain/showing-slots';
import type { TriageClass } from '../../domain/triage/labels';
import { declineReasons, leadAsks, leadPolicyCalls, leadVerdict, type Verdict } from '../lead-triage';
import { greeting } from '../rules-triage';
import type { PlannedCall, PlannerInput, PolicyBasis, Trigger } from '../types';
import { slotsOf } from './helpers';

type SmsTrigger = Extract<Trigger, { kind: 'inbound_sms' }>;

/**
 * A lead that texts is qualified as one that emails (issue 17: "leads wherever they arrive"). The texter's
 * claims were recorded as facts about them before the run (lead-intake.ts `recordLeadFromText`); here the
 * rules planner asks the policy the same questions as for a leads email, in the same round as the calendar's
 * free times, and the reply follows the verdict: an invitation with the free times, a polite decline with
 * the policy's reason, or the open questions asked in the same text as the times on offer. Without a policy
 * it is the plain welcome.
 */
export const leadSmsReads = (input: PlannerInput): PlannedCall[] => leadPolicyCalls(input, 'the text');

/**
 * What a newcomer's reply says they asked about: the unit's address (the same reading as the conversation's
 * assignment, lead-property.ts, then the lead form's), else the unit in their own words ("the 2 bedroom on
 * Elm"), else a viewing or our rentals.
 */
export function leadAbout(said: string, triageClass: TriageClass | undefined, property?: string): string {
  const unit = leadPropertyOf(said) ?? property;
  if (unit) return `the apartment at ${unit}`;
  return describedUnitOf(said) ?? (triageClass === 'showing' ? 'a viewing' : 'our rentals');
}

export interface LeadSmsReply {
  text: string;
  /** What the card says the reply rests on ("qualified", "not qualified (dog)"), with any question left open. */
  summary: string;
  policy?: PolicyBasis;
}

/**
 * The reply to a texted lead, by the policy's verdict; undefined when the policy was not asked or could not
 * decide anything (the caller's plain welcome stands). Short, as a text should be; never a placeholder.
 */
export function leadSmsReply(
  input: PlannerInput,
  t: SmsTrigger,
  name: string | undefined,
): LeadSmsReply | undefined {
  const v = leadVerdict(input.observations);
  const said = t.texts.join('\n');
  const claims = leadClaims(said, { timezone: input.timezone });
  const about = leadAbout(said, t.triage?.triageClass, claims.property);
  const text = leadText(v, {
    hi: `${greeting(name)} thanks for reaching out about ${about}.`,
    slots: slotsOf(input.observations),
    askName: !name,
    askMoveIn: !claims.moveIn,
  });
  if (!text) return undefined;
  // A decline does not invite more questions; any other reply says plainly what it cannot answer yet.
  const open = v.kind === 'declined' ? [] : openQuestions(t.texts);
  return {
    text: `${text}${unansweredNote(open)}`,
    summary: `${v.summary}${open.length ? `; left for a person: ${open.map((q) => `“${q}”`).join(', ')}` : ''}`,
    policy: v.basis,
  };
}

function leadText(
  v: Verdict,
  o: { hi: string; slots: readonly { label: string }[]; askName: boolean; askMoveIn: boolean },
): string | undefined {
  const times = o.slots.length
    ? ` We can show you the place on ${slotsSentence(o.slots)} — reply with the one that suits you.`
    : '';
  const name = o.askName ? ' May we also have your name?' : '';
  switch (v.kind) {
    case 'qualified':
      return `${o.hi} From what you told us, you meet our rental criteria.${times || ' A member of our leasing team will text you shortly with times for a viewing.'}${name}`;
    case 'declined': {
      const why = declineReasons(v);
      return `${o.hi} Unfortunately we can't move forward with this one${why.length ? `: ${why.join(', and ')}` : ''}. Thank you for considering us, and good luck with your search.`;
    }
    case 'needs': {
      const asks = leadAsks(v, 'inline');
      if (asks.length)
        return `${o.hi}${times} Before we confirm a viewing, could you tell us ${listed([...asks, ...(o.askMoveIn ? ['your preferred move-in date'] : [])])}?${name}`;
      if (v.forTeam.length)
        return `${o.hi} We have your details, and a member of our team is reviewing them — we'll text you shortly about a viewing.${name}`;
      return undefined;
    }
    case 'undecided':
      return undefined;
  }
}

/** "a and b", "a, b, and c". */
function listed(items: string[]): string {
  if (items.length < 3) return items.join(' and ');
  return `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`;
}
