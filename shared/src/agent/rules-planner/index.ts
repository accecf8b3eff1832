import type { Plan, PlannerInput } from '../types';
import { chat } from './chat';
import { triageCall } from './triage-call';
import { triageEmail } from './triage-email';
import { triageSms } from './triage-sms';

export { type DetectIntent, detectByTable } from './chat';
export type { ChatIntent, Slots } from './intent';
export { CHAT_INTENTS } from './intents';

/**
 * The deterministic planner (SPEC §3.1 rules mode, §3.2 steps 2–3). A pure function of the trigger, the
 * observations so far and the pending intent: each call returns the next step, so the same loop drives it
 * as drives Claude. It handles inbound triage (triage-sms, triage-email, lead-triage) and the chat intents,
 * one file each under intents/ and tried in the order of the `CHAT_INTENTS` table (chat.ts), with parsers
 * for the critical values; anything else gets a clear "here is what I can do".
 */
export function rulesPlan(input: PlannerInput): Plan {
  switch (input.trigger.kind) {
    case 'inbound_sms':
      return triageSms(input, input.trigger);
    case 'inbound_email':
      return triageEmail(input, input.trigger);
    case 'chat':
      return chat(input, input.trigger);
    case 'call':
      return triageCall(input, input.trigger);
  }
}
