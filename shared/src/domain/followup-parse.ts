import { extractTime } from './extract';

/** A condition as said in chat, before the person it names is looked up. */
export type SaidCondition =
  | { kind: 'no_reply'; who: string }
  | { kind: 'no_mention'; word: string }
  | { kind: 'task_open'; name: string }
  | { kind: 'event_unconfirmed'; name: string };

export interface SaidFollowUp {
  kind: 'text' | 'reminder';
  /** Who gets it: a contact's name or number, or "me" / a team member for a reminder. */
  recipient: string;
  /** ISO time in the team's zone. */
  at: string;
  /** The words to send, when the request said them. */
  text?: string;
  condition?: SaidCondition;
  /** The condition as the person said it ("the plumber hasn't confirmed"). */
  conditionSaid?: string;
}

const NOT =
  "(?:has\\s*n[o’']t|hasn[’']t|has not|did\\s*n[o’']t|didn[’']t|does\\s*n[o’']t|doesn[’']t|is not|isn[’']t|still has\\s*n[o’']t)";

/** "the plumber hasn't confirmed", "nobody mentions the key", "the task X is still open", "the showing is not confirmed". */
export function parseCondition(said: string): SaidCondition | undefined {
  const s = said.trim().replace(/[.!?]+$/, '');
  const event = s.match(
    new RegExp(
      `^(?:the\\s+)?((?:showing|event|appointment|visit|viewing)\\b.*?)\\s+(?:${NOT}|is still not|has not been|hasn[’']t been|is)\\s+(?:yet\\s+)?(?:been\\s+)?(?:un)?confirmed$`,
      'i',
    ),
  );
  if (event && /not|n[’']t|unconfirmed/i.test(s))
    return { kind: 'event_unconfirmed', name: event[1] as string };
  const task = s.match(/^(?:the\s+)?task\s+["“]?(.+?)["”]?\s+is\s+still\s+(?:open|not done)$/i);
  if (task) return { kind: 'task_open', name: task[1] as string };
  const mention = s.match(
    /^(?:no\s*one|nobody|no message|no one has)\s+(?:has\s+)?(?:mentioned|mentions|said|says|talked about)\s+["“]?(?:the\s+)?([\w-]{2,60})/i,
  );
  if (mention) return { kind: 'no_mention', word: mention[1] as string };
  const reply = s.match(
    new RegExp(
      `^(?:the\\s+)?(.+?)\\s+${NOT}\\s+(?:yet\\s+)?(?:confirm(?:ed)?|repl(?:ied|y)|answer(?:ed)?|respond(?:ed)?|texted back|written back|gotten back(?: to us)?|got back(?: to us)?|called back|said yes)\\b`,
      'i',
    ),
  );
  if (reply) return { kind: 'no_reply', who: reply[1] as string };
  return undefined;
}

/**
 * "text Maria tomorrow at 9 if the plumber hasn't confirmed", "remind me Friday at 3 to call the bank",
 * "text Bob at 5pm saying the door code is 1234 unless he replied": recognised only with a time AND either a
 * condition or "remind" — a plain "text Maria that …" stays an immediate text.
 */
export function parseFollowUpRequest(text: string, now: Date, timezone: string): SaidFollowUp | undefined {
  const m = text.trim().match(/^(?:please\s+)?(text|sms|message|remind)\s+(.+)$/i);
  if (!m) return undefined;
  const kind = /^remind$/i.test(m[1] as string) ? 'reminder' : 'text';
  let rest = m[2] as string;
  let conditionSaid: string | undefined;
  let unless = false;
  const cond = rest.match(/\s+(only\s+if|if|unless)\s+(.+)$/i);
  if (cond) {
    unless = /^unless$/i.test(cond[1] as string);
    conditionSaid = cond[2] as string;
    rest = rest.slice(0, cond.index);
  }
  if (kind === 'text' && !conditionSaid) return undefined;
  const time = extractTime(rest, now, timezone);
  if (!time) return undefined;
  rest = rest.replace(time.text, ' ').replace(/\s+/g, ' ').trim();
  const said = rest.match(/^(.+?)(?:\s+(?:saying|that|to say|to)\s+|:\s*)(.+)$/i);
  const recipient = (said ? said[1] : rest)?.replace(/\s+(?:on|at)$/i, '').trim();
  if (!recipient) return undefined;
  const condition = conditionSaid
    ? unless
      ? parseUnless(conditionSaid)
      : parseCondition(conditionSaid)
    : undefined;
  return {
    kind,
    recipient,
    at: time.start,
    ...(said?.[2] ? { text: said[2].trim() } : {}),
    ...(condition ? { condition } : {}),
    ...(conditionSaid ? { conditionSaid } : {}),
  };
}

/** "unless the plumber has replied / confirmed": the same as "if the plumber has not". */
function parseUnless(said: string): SaidCondition | undefined {
  const m = said
    .trim()
    .match(
      /^(?:the\s+)?(.+?)\s+(?:has\s+|already\s+)*(?:confirmed|replied|answered|responded|texted back|got back(?: to us)?|called back)\b/i,
    );
  return m ? { kind: 'no_reply', who: m[1] as string } : undefined;
}
