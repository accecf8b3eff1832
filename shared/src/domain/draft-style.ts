import { isActive, type Lesson, lessonLine } from './lessons';

/**
 * How a rules-mode draft is written in the team's style (cards #18) and signed (follow #20) — the ONE place a
 * draft's greeting, phrasing and closing are changed after the template wrote it, so the two sources of a
 * sign-off can never both land on a draft:
 * - a person's explicit signature preference (Settings → Preferences) WINS: it replaces the draft's closing,
 *   and a learned sign-off lesson is then not applied (decided between cards and follow);
 * - else the team's learned sign-off lesson (seen on two cards of the same kind);
 * - greeting and phrasing lessons (also from two cards) apply either way.
 * Pure: callers pass the lessons in force and the signature they resolved (whose it is is the caller's call).
 */

const paragraphs = (t: string) =>
  t
    .trim()
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

const CLOSING_WORDS = /^(—|–|-\s|best|kind|warm|regards|thanks|thank you|sincerely|cheers)/i;
/**
 * A closing is a short last paragraph that is not a sentence: "— Sam, Oak Properties", "Best,\nSam",
 * "Switchboard". A last line ending in . ! ? is content ("We'll confirm a time."), never replaced.
 */
export const isClosing = (p: string | undefined) =>
  !!p &&
  p.length <= 80 &&
  p.split('\n').length <= 3 &&
  (CLOSING_WORDS.test(p) || !/[.!?]$/.test(p.split('\n').at(-1)?.trim() ?? ''));

/** The salutation a draft opens with ("Hi", "Hello", "Good morning", "Dear"), if any. */
const GREETING = /^(hi|hello|hey|hiya|dear|good (?:morning|afternoon|evening)|greetings)\b/i;
export function greetingOf(text: string): string | undefined {
  return GREETING.exec(text.trimStart())?.[1];
}

/** Sentences of the draft's body (greeting word and closing left out of the comparison by the callers). */
export const sentences = (t: string) =>
  t
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

export interface Signature {
  /** The signature exactly as the person saved it. */
  text: string;
  /** Whose it is, for the card's line ("Sam Chen"). */
  owner: string;
}

type Styled = { args: Record<string, unknown>; applied: string[] };

const textField = (args: Record<string, unknown>) =>
  typeof args.text === 'string' ? 'text' : typeof args.body === 'string' ? 'body' : undefined;

/**
 * The draft with the team's style and the signature applied. Returns what was applied, one line each, for
 * the card ("Follows what the team taught: …").
 */
export function styleDraft(
  lessons: Lesson[],
  tool: string,
  args: Record<string, unknown>,
  opts: { signature?: Signature | undefined; strict?: boolean } = {},
): Styled {
  const field = textField(args);
  if (!field) return { args, applied: [] };
  const mine = lessons.filter((l) => l.tool === tool && isActive(l));
  const applied: string[] = [];
  let text = String(args[field]);
  for (const l of strongest(mine, 'phrasing', 10)) {
    if (!l.from || !text.includes(l.from) || l.from === l.text) continue;
    text = text.split(l.from).join(l.text);
    applied.push(lessonLine(l));
  }
  const greet = strongest(mine, 'greeting', 1)[0];
  const had = greetingOf(text);
  if (greet && had && had !== greet.text) {
    text = `${greet.text}${text.trimStart().slice(had.length)}`;
    applied.push(lessonLine(greet));
  }
  const sign = opts.signature
    ? { text: opts.signature.text, line: `Signed with ${opts.signature.owner}’s signature (Settings)` }
    : signOffLesson(mine);
  if (sign) {
    const signed = withClosing(text, sign.text, opts.strict);
    if (signed !== text) applied.push(sign.line);
    text = signed;
  }
  return applied.length ? { args: { ...args, [field]: text }, applied } : { args, applied };
}

function strongest(lessons: Lesson[], aspect: Lesson['aspect'], n: number): Lesson[] {
  return lessons
    .filter((l) => l.aspect === aspect)
    .sort((a, b) => b.seen - a.seen || b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, n);
}

function signOffLesson(lessons: Lesson[]): { text: string; line: string } | undefined {
  const l = strongest(lessons, 'sign-off', 1)[0];
  return l ? { text: l.text, line: lessonLine(l) } : undefined;
}

/**
 * The closing replaced when the draft has one, else added; a one-paragraph text keeps all of its words.
 * `strict` (a model's own draft, follow #20): only a last paragraph that opens with closing words ("Best,",
 * "— Sam") is a closing — a model may end on content ("Call me if anything comes up") the template rule
 * would take for a name.
 */
export function withClosing(text: string, closing: string, strict = false): string {
  const parts = paragraphs(text);
  if (parts.at(-1) === closing) return text;
  const last = parts.at(-1);
  const closes = strict ? !!last && last.length <= 80 && CLOSING_WORDS.test(last) : isClosing(last);
  const body = parts.length > 1 && closes && last !== parts[0] ? parts.slice(0, -1) : parts;
  return [...body, closing].join('\n\n');
}
