import type { LeadInfo, PendingAction, PendingIntent } from '../contracts/conversations';
import type { EmailReceived } from '../contracts/events';
import type { PersonalPreferences } from '../contracts/preferences';
import type { EmergencyKind, TriageClass } from '../domain/triage/labels';
import type { ServerContent } from '../ports/model';

/**
 * A run that redrafts a card (cards #18): the card it replaces, what the person asked for (an instruction, a
 * deny reason, or answers to its questions) and the draft as it stood.
 */
export interface RedraftNote {
  fromActionId: string;
  kind: 'redraft' | 'deny' | 'answer';
  instruction?: string;
  by: { id: string; name: string };
  previous: { tool: string; args: Record<string, unknown> };
}

/** What a run is about, reconstructed from its stored input step on every replay. */
export type Trigger = (
  | {
      kind: 'chat';
      channel: 'web' | 'sms';
      text: string;
      user: { id: string; email: string; name?: string; preferences?: ChatPreferences };
      phone?: string;
    }
  | {
      kind: 'inbound_sms';
      from: string;
      /** Each text with "[photo]" notes for its media (domain/media.ts), so rules mode reads something. */
      texts: string[];
      urgent: boolean;
      triage?: TriageNote;
      /** Photos of the texts (our ids); Claude mode sends the images themselves. */
      media?: Array<{ id: string; type: string | null }>;
      /** Where this lead stood when the text arrived (follow #20): booked or out → no reply. */
      lead?: LeadInfo;
    }
  | {
      kind: 'inbound_email';
      email: EmailReceived;
      count: number;
      triage?: TriageNote;
      /**
       * The classifier itself read an emergency (not the keyword floor alone, which would page for every
       * newsletter about flood insurance): on-call is paged as for a text.
       */
      urgent?: boolean;
      /** From the team's own domain with Gmail's DMARC pass: a team request, never an outside acknowledgement. */
      team?: boolean;
      /** Where this lead stood when the email arrived (follow #20): booked or out → no reply. */
      lead?: LeadInfo;
    }
  | CallTrigger
) & { redraft?: RedraftNote };

/** A finished phone call (follow #20): notes go to memory, follow-ups are proposed as cards. */
export interface CallTrigger {
  kind: 'call';
  callId: string;
  /** The outside party's number. */
  from: string;
  contactName?: string;
  /** A team member on the other end (their own call): notes only, no text back to them. */
  internal?: boolean;
  direction?: 'incoming' | 'outgoing';
  durationSeconds?: number | null;
  summary: string[];
  nextSteps: string[];
  /** `speaker: text` lines (cut). */
  transcript: string[];
  /** The classifier's verdict on the caller's own words, for rules mode's text back. */
  triage?: TriageNote;
}

/** The classifier's verdict on an inbound message, fixed in the run's input step so replays agree. */
export interface TriageNote {
  triageClass: TriageClass;
  kind?: EmergencyKind;
  confidence: number;
  /** The words that weighed most, or the urgency keywords when the keyword floor decided. */
  cues: string[];
  byKeywordFloor: boolean;
  /** What a repair or an emergency is about, when the text names it ("the kitchen sink"): reply and card say it. */
  subject?: string;
}

/** The asking person's own settings that planning reads (follow #20), carried on a PWA chat's event. */
export type ChatPreferences = Pick<PersonalPreferences, 'timezone' | 'eventMinutes'>;

export interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
  reason: string;
  /** The model's tool_use id, so the result goes back to the right block. */
  toolUseId?: string;
  /** The policy answer this call rests on, shown on its approval card (rules planner only; see card-policy.ts). */
  policy?: PolicyBasis;
  /** A lead's nudge: executed only while the lead has not moved (PendingAction.whileLead). */
  whileLead?: PendingAction['whileLead'];
}

/** Derivation lines from an `ask_policy` answer, and what it still needs, as the approval card shows them. */
export interface PolicyBasis {
  why: string[];
  missing?: { tools: string[]; questions: string[] };
  /** The questions a person can answer on the card, with the pattern each answer is recorded as. */
  questions?: Array<{ ask: string; recordAs: string }>;
}

export type Plan =
  | {
      kind: 'calls';
      calls: PlannedCall[];
      note?: string;
      /** Server-tool calls and results (web search/fetch) of the same model turn, replayed in its history. */
      server?: ServerContent[];
    }
  | { kind: 'respond'; text: string }
  | { kind: 'ask'; text: string; intent: Pick<PendingIntent, 'intent' | 'slots' | 'missing'> }
  | { kind: 'no_action'; reason: string };

/** The outcome of one planned call, as the planner sees it on the next round. */
export interface Observation {
  name: string;
  args: Record<string, unknown>;
  toolUseId?: string;
  status: 'ok' | 'error' | 'denied' | 'refused' | 'executed' | 'failed' | 'awaiting_approval';
  result?: unknown;
  error?: string;
  actionId?: string;
  /** A person changed the arguments before approving; `args` are the ones that were used. */
  edited?: boolean;
}

export interface PlannerInput {
  trigger: Trigger;
  observations: Observation[];
  pendingIntent?: PendingIntent;
  now: Date;
  timezone: string;
  hasTool(name: string): boolean;
  /** The chatting person's preferences (follow #20): their default event length, signature. */
  preferences?: PersonalPreferences;
}
