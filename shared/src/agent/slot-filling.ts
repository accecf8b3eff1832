import { extractEmails, extractPhones, extractTime } from '../domain/extract';

/**
 * Slot filling for the write intents in rules mode (issue 17): one question that lists every missing slot,
 * and answers merged in any order — a number or an address fills the recipient, a time fills the start,
 * "subject: …" / "body: …" fill what they name, and plain text fills the next slot still missing.
 */

const SLOT_NAMES: Record<string, string> = {
  recipient: 'who to send it to',
  text: 'what the text should say',
  subject: 'the subject',
  body: 'what the email should say',
  title: 'what the event is',
  start: 'when it is (date and time)',
  name: 'what the task is',
  fact: 'what to remember',
  query: 'who or what to look up',
};

const SINGLE: Record<string, string> = {
  recipient: 'Who should I send it to?',
  text: 'What should the text say?',
  subject: 'What is the subject of the email?',
  body: 'What should the email say?',
  title: 'What is the event?',
  start: 'When should it be (date and time)?',
  name: 'What is the task?',
};

const WHAT: Record<string, string> = {
  send_email: 'To send the email',
  send_text: 'To send the text',
  create_event: 'To put it on the calendar',
  create_task: 'To create the task',
};

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** One message that asks for exactly the missing slots. */
export function askFor(intent: string, missing: string[]): string {
  if (missing.length === 1) {
    const slot = missing[0] as string;
    return SINGLE[slot] ?? `I need ${SLOT_NAMES[slot] ?? slot}.`;
  }
  const labels = missing.map((s) => SLOT_NAMES[s] ?? s);
  return `${WHAT[intent] ?? 'To do that'} I need ${list(labels)}. Answer in any order, in one message or several (for example “subject: …”).`;
}

/** A number written the way people write one; kept even where the numbering plan has no such line (555). */
function e164(written: string): string | undefined {
  const digits = written.replace(/\D/g, '');
  if (written.trim().startsWith('+') && digits.length >= 10 && digits.length <= 15) return `+${digits}`;
  if (digits.length === 10) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  return undefined;
}

/** "+1 555 000 9999 hello" → the number and the body; anything else is a recipient alone. */
export function splitRecipient(raw: string): { recipient: string; rest?: string } {
  const m = raw.match(/^\s*(\+?\d[\d\s().-]{6,}\d)\b\s*[,:-]?\s*(.*)$/s);
  const phone = m?.[1] ? (extractPhones(m[1])[0] ?? e164(m[1])) : undefined;
  if (!m || !phone) return { recipient: raw.trim() };
  const rest = m[2]?.trim();
  return rest ? { recipient: phone, rest } : { recipient: phone };
}

interface MergeContext {
  now: Date;
  timezone: string;
}

const LABELLED = /^\s*(to|recipient|subject|re|body|text|message|title|when|task)\s*:\s*(.+)$/i;
const LABEL_SLOT: Record<string, string> = {
  to: 'recipient',
  recipient: 'recipient',
  subject: 'subject',
  re: 'subject',
  body: 'body',
  text: 'text',
  message: 'text',
  title: 'title',
  when: 'start',
  task: 'name',
};

/** Merges one answer into the pending slots; returns the slots after the answer. */
export function mergeAnswer(
  intent: string,
  slots: Record<string, unknown>,
  missing: string[],
  answer: string,
  ctx: MergeContext,
): Record<string, unknown> {
  const out = { ...slots };
  const open = () => missing.filter((s) => out[s] === undefined || out[s] === '');
  const parts = answer
    .split(/\n|;\s*|,\s*(?=(?:to|subject|body|text|message|when)\s*:)/i)
    .map((p) => p.trim())
    .filter(Boolean);
  for (const part of parts) {
    const labelled = part.match(LABELLED);
    const slot = labelled?.[1] ? LABEL_SLOT[labelled[1].toLowerCase()] : undefined;
    if (slot && labelled?.[2] && missing.includes(slot)) {
      out[slot] =
        slot === 'start'
          ? (extractTime(labelled[2], ctx.now, ctx.timezone)?.start ?? labelled[2])
          : labelled[2].trim();
      continue;
    }
    mergePlain(intent, out, open(), part, ctx);
  }
  return out;
}

/** A bare name ("Maria", "to Bob Smith") answers "who to send it to" even when other slots are open. */
const NAME_ONLY = /^(?:to\s+)?[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)?$/;

function mergePlain(
  intent: string,
  out: Record<string, unknown>,
  open: string[],
  part: string,
  ctx: MergeContext,
): void {
  let rest = part;
  if (open.includes('recipient')) {
    const address = intent === 'send_email' ? extractEmails(rest)[0] : undefined;
    const split = intent === 'send_text' ? splitRecipient(rest) : undefined;
    if (address) {
      out.recipient = address;
      rest = rest
        .replace(address, '')
        .replace(/^\s*(to)\s+/i, '')
        .trim();
    } else if (split && split.recipient !== rest.trim()) {
      out.recipient = split.recipient;
      rest = split.rest ?? '';
    } else if (open.length === 1 || NAME_ONLY.test(rest)) {
      out.recipient = rest.replace(/^\s*to\s+/i, '').trim();
      return;
    }
  }
  if (!rest) return;
  if (open.includes('start') && out.start === undefined) {
    const when = extractTime(rest, ctx.now, ctx.timezone);
    if (when?.hasTime) {
      out.start = when.start;
      if (open.length > 1) return;
    }
  }
  const next = open.find(
    (s) => s !== 'recipient' && s !== 'start' && (out[s] === undefined || out[s] === ''),
  );
  if (next) out[next] = rest;
}
