import { askFor, mergeAnswer } from '../slot-filling';
import type { Plan, PlannerInput, Trigger } from '../types';
import { respond } from './helpers';
import type { ChatIntent, Slots } from './intent';
import { CHAT_INTENTS } from './intents';

// "Stop requiring approval for …" / "stop paging without approval" are policy requests, not a cancel.
const CANCEL = /^\s*(cancel|never\s?mind|start over|forget it|stop)\b(?![\s\S]*\bapproval\b)/i;

const HELP =
  'I can text a contact ("text Maria that the plumber comes at 3"), email someone, put an event on the calendar, create a task, look up a contact, tell you what is on the calendar, remember something, or propose a policy change for an admin ("require approval for paging"). What would you like?';

type Intent = { intent: string; slots: Slots };

/** Recognises a new request: the first intent of the table whose detector matches the text. */
export type DetectIntent = (text: string, input: PlannerInput) => Intent | undefined;

export function detectByTable(intents: readonly ChatIntent[] = CHAT_INTENTS): DetectIntent {
  return (text, input) => {
    const t = text.trim();
    for (const i of intents) {
      const slots = i.detect(t, input);
      if (slots) return { intent: i.name, slots };
    }
    return undefined;
  };
}

const byTable = detectByTable();

/** A reply merged into the pending request's missing slots (in any order, labelled or by kind: slot-filling). */
function mergeFollowUp(input: PlannerInput, text: string): Intent | undefined {
  const pending = input.pendingIntent;
  if (!pending) return undefined;
  if (!pending.missing.length) return { intent: pending.intent, slots: pending.slots };
  const slots = mergeAnswer(pending.intent, pending.slots, pending.missing, text, {
    now: input.now,
    timezone: input.timezone,
  });
  return { intent: pending.intent, slots };
}

/**
 * A chat request: cancel, fill the pending request's missing slot, or recognise a new one; ask for what is
 * still missing, then hand the filled slots to the intent's own planner.
 */
export function chat(
  input: PlannerInput,
  t: Extract<Trigger, { kind: 'chat' }>,
  opts: { intents?: readonly ChatIntent[]; detect?: DetectIntent } = {},
): Plan {
  if (CANCEL.test(t.text)) return respond(input.pendingIntent ? 'Okay, I dropped that request.' : 'Okay.');
  const intents = opts.intents ?? CHAT_INTENTS;
  const detect = opts.detect ?? (opts.intents ? detectByTable(intents) : byTable);
  // A follow-up that fills the missing slot belongs to the pending request, even when it reads like a new
  // one ("Please remember to leave the gate open" as the text of a message); otherwise try a new intent.
  const pending = input.pendingIntent;
  const merged = mergeFollowUp(input, t.text);
  const filled =
    pending !== undefined &&
    merged !== undefined &&
    pending.missing.some(
      (s) => merged.slots[s] !== undefined && merged.slots[s] !== '' && merged.slots[s] !== pending.slots[s],
    );
  const intent = (filled ? merged : detect(t.text, input)) ?? merged;
  const handler = intent && intents.find((i) => i.name === intent.intent);
  if (!intent || !handler) return respond(HELP);
  const missing = handler.required.filter((s) => intent.slots[s] === undefined || intent.slots[s] === '');
  if (missing.length) {
    return {
      kind: 'ask',
      text: askFor(intent.intent, missing),
      intent: { ...intent, missing },
    };
  }
  return handler.plan(input, intent.slots);
}
