import type { EmailReceived } from '../contracts/events';
import {
  extractLead,
  type LeadClaims,
  type LeadDetails,
  leadClaims,
  leadPolicyFacts,
} from '../domain/lead-extract';
import type { FactProvenance, FactValue } from '../ports/fact-store';

/** The part of the per-conversation policy the intake needs (see policy-runtime.ts). */
export interface LeadFactRecorder {
  recordFacts(
    conversationId: string,
    facts: Array<{ predicate: string; args: FactValue[] }>,
    provenance: FactProvenance,
    now: Date,
  ): Promise<{ recorded: string[]; skipped: string[] }>;
  setFocus(conversationId: string, name: string, value: FactValue, now: Date): Promise<boolean>;
}

/** The policy's context variable for "the lead this conversation is about" (policy/leads.rules). */
export const LEAD_CONTEXT = 'lead_of_interest';

/**
 * Primary course, before a leads email is triaged: read the lead's facts from the email (credit score, pets,
 * move-in date, budget), record them in the conversation's fact store as facts ABOUT the lead — sourced to
 * that email, so every derivation that uses them says where they came from — and point `lead_of_interest` at
 * the lead. The runtime does this, not a tool: neither the email nor a model chooses which facts are written,
 * and a fact can only make the lead look qualified; every reply still waits for a person (SPEC §6.4).
 * Idempotent (facts are upserts, focus is rebound to the same id), so a redelivered event records the same.
 */
export async function recordLeadFromEmail(
  policy: LeadFactRecorder,
  input: { conversationId: string; email: EmailReceived; timezone: string; now: Date },
): Promise<{ lead: LeadDetails; recorded: string[]; skipped: string[]; focused: boolean }> {
  const e = input.email;
  const lead = extractLead(
    { from: e.from, subject: e.subject, text: e.text, date: e.date },
    { timezone: input.timezone },
  );
  const { recorded, skipped } = await policy.recordFacts(
    input.conversationId,
    leadPolicyFacts(lead),
    { kind: 'tool', detail: `email ${e.messageId}` },
    input.now,
  );
  const focused = await policy.setFocus(input.conversationId, LEAD_CONTEXT, lead.id, input.now);
  return { lead, recorded, skipped, focused };
}

/**
 * The same for a text that reads as a lead (issue 17: a lead is a lead wherever it writes): the texter's
 * own claims ("credit is about 720, we have a cat, moving in June") become facts about the lead, whose id is
 * their number, sourced to the text; `lead_of_interest` points at them. Idempotent like the email's.
 */
export async function recordLeadFromText(
  policy: LeadFactRecorder,
  input: {
    conversationId: string;
    phone: string;
    texts: Array<{ messageId: string; text: string; date: string }>;
    timezone: string;
    now: Date;
  },
): Promise<{ claims: LeadClaims; recorded: string[]; skipped: string[]; focused: boolean }> {
  const recorded: string[] = [];
  const skipped: string[] = [];
  let claims: LeadClaims = {};
  for (const t of input.texts) {
    const said = leadClaims(t.text, { date: t.date, timezone: input.timezone });
    claims = { ...claims, ...said };
    const r = await policy.recordFacts(
      input.conversationId,
      leadPolicyFacts({ id: input.phone, ...said }),
      { kind: 'tool', detail: `text ${t.messageId}` },
      input.now,
    );
    recorded.push(...r.recorded);
    skipped.push(...r.skipped);
  }
  const focused = await policy.setFocus(input.conversationId, LEAD_CONTEXT, input.phone, input.now);
  return { claims, recorded, skipped, focused };
}
