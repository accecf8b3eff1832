import { createHash } from 'node:crypto';

/**
 * Lessons the assistant learns from the team's decisions (cards #18), as files in the memory workspace
 * (`lessons/`, written only by system code — a protected path) with an index in MEMORY.md. Pure: reading a
 * correction out of a decision, the file format, and applying style lessons to a rules-mode draft.
 *
 * - `sign-off`: an approved edit changed or added the draft's closing ("— Sam, Oak Properties"). Style:
 *   once the same correction was made on LESSON_ACTIVE_AT cards of the same kind, rules mode writes it
 *   into every such draft, and the card says so.
 * - `note`: a deny reason or a redraft instruction ("don't promise a time"), kept as said; the model reads
 *   it (MEMORY.md index) in Claude mode. Rules mode applies no notes: it cannot know what they mean.
 */

export type LessonAspect = 'sign-off' | 'note';

export interface Lesson {
  /** The write it is about: `send_message`, `send_email`, … */
  tool: string;
  aspect: LessonAspect;
  /** The sign-off to use, or the note as the person wrote it. */
  text: string;
  /** How many decisions made this same correction. */
  seen: number;
  /** A few recent examples: when, who, what was drafted → what was approved or asked. */
  examples: string[];
  updatedAt: string;
}

/** The same correction on two cards of the same kind makes a style lesson apply. */
export const LESSON_ACTIVE_AT = 2;
/** The index in MEMORY.md and the folder are capped: the least-seen lessons go first. */
export const LESSONS_MAX = 30;
const EXAMPLES_MAX = 5;

export const LESSONS_DIR = 'lessons';
const TOOL_WORDS: Record<string, string> = {
  send_message: 'text messages',
  send_email: 'emails',
  schedule_followup: 'scheduled texts',
};
const kindWords = (tool: string) => TOOL_WORDS[tool] ?? tool.replace(/_/g, ' ');

export function lessonPath(l: Pick<Lesson, 'tool' | 'aspect' | 'text'>): string {
  const h = createHash('sha256').update(l.text.trim().toLowerCase()).digest('hex').slice(0, 8);
  return `${LESSONS_DIR}/${l.tool}-${l.aspect}-${h}.md`;
}

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
const isClosing = (p: string | undefined) =>
  !!p &&
  p.length <= 80 &&
  p.split('\n').length <= 3 &&
  (CLOSING_WORDS.test(p) || !/[.!?]$/.test(p.split('\n').at(-1)?.trim() ?? ''));

/**
 * The sign-off an edit put on the draft, when that is (part of) what it changed: the edited text's last
 * paragraph is a closing that the draft did not end with. Undefined when the closing is unchanged.
 */
export function signOffCorrection(drafted: string, approved: string): string | undefined {
  const before = paragraphs(drafted);
  const after = paragraphs(approved);
  const last = after.at(-1);
  if (after.length < 2 || !isClosing(last) || before.at(-1) === last) return undefined;
  return last;
}

export function isActive(l: Lesson): boolean {
  return l.aspect === 'note' || l.seen >= LESSON_ACTIVE_AT;
}

/** The lesson as a person reads it in one line (the PWA list and the MEMORY.md index). */
export function lessonLine(l: Lesson): string {
  if (l.aspect === 'sign-off')
    return `Sign ${kindWords(l.tool)} off with “${l.text.replace(/\n/g, ' / ')}” (made ${l.seen}× on approval${isActive(l) ? '' : `; applies from ${LESSON_ACTIVE_AT}`})`;
  return `When drafting ${kindWords(l.tool)}: “${l.text}” (said ${l.seen}×)`;
}

/** The file: a readable heading and line, then the fields in a JSON block the system reads back. */
export function renderLesson(l: Lesson): string {
  return [
    `# Lesson: ${l.aspect} for ${kindWords(l.tool)}`,
    '',
    lessonLine(l),
    '',
    'Written by Switchboard from the team’s decisions on approval cards; delete this file to forget it.',
    '',
    '```json',
    JSON.stringify(l, null, 2),
    '```',
    '',
  ].join('\n');
}

export function parseLesson(content: string): Lesson | undefined {
  const m = content.match(/```json\n([\s\S]*?)\n```/);
  if (!m?.[1]) return undefined;
  try {
    const v = JSON.parse(m[1]) as Partial<Lesson>;
    if (typeof v.tool !== 'string' || typeof v.text !== 'string' || typeof v.seen !== 'number')
      return undefined;
    if (v.aspect !== 'sign-off' && v.aspect !== 'note') return undefined;
    return {
      tool: v.tool,
      aspect: v.aspect,
      text: v.text,
      seen: v.seen,
      examples: Array.isArray(v.examples) ? v.examples.map(String) : [],
      updatedAt: String(v.updatedAt ?? ''),
    };
  } catch {
    return undefined;
  }
}

/** One more decision making this correction: counted, with the example kept (the last few). */
export function observe(
  existing: Lesson | undefined,
  next: Omit<Lesson, 'seen' | 'examples'>,
  example: string,
): Lesson {
  return {
    ...next,
    seen: (existing?.seen ?? 0) + 1,
    examples: [...(existing?.examples ?? []), example].slice(-EXAMPLES_MAX),
  };
}

const START = '<!-- lessons:start (written by Switchboard from decisions) -->';
const END = '<!-- lessons:end -->';

/** MEMORY.md with its lessons section replaced (or added at the end), most-seen first, capped. */
export function withLessonIndex(memory: string, lessons: Array<{ path: string; lesson: Lesson }>): string {
  const top = [...lessons].sort((a, b) => b.lesson.seen - a.lesson.seen).slice(0, LESSONS_MAX);
  const section = [
    START,
    '## Lessons from the team',
    ...(top.length ? top.map((x) => `- ${lessonLine(x.lesson)} — ${x.path}`) : ['- (none yet)']),
    END,
  ].join('\n');
  const at = memory.indexOf(START);
  const end = memory.indexOf(END);
  if (at >= 0 && end > at) return `${memory.slice(0, at)}${section}${memory.slice(end + END.length)}`;
  return `${memory.trimEnd()}\n\n${section}\n`;
}

/** A person's explicit signature preference (Settings), and whose it is, for the card's note. */
export interface SignaturePreference {
  text: string;
  owner: string;
}

/** Writes to people outside the team that carry a signature (a reminder push to a team member does not). */
const SIGNED = (tool: string, args: Record<string, unknown>) =>
  tool === 'send_message' ||
  tool === 'send_email' ||
  (tool === 'schedule_followup' && args.kind !== 'reminder');

/**
 * THE one function that signs and styles a draft (cards #18 and follow #20 agreed it): the active style
 * lessons for this tool (rules-mode template drafts only), and a person's explicit signature preference,
 * which wins over a learned sign-off lesson — with a preference no sign-off lesson applies, so a draft never
 * carries two. Either replaces the draft's closing paragraph when it has one, else is added. A model's own
 * draft (`strict`) has its last paragraph replaced only when it opens with closing words ("Best,", "— Sam"):
 * the model may end on content that the loose template rule would take for a name. Returns what was applied,
 * for the card.
 */
export function applyStyleLessons(
  lessons: Lesson[],
  tool: string,
  args: Record<string, unknown>,
  opts: { signature?: SignaturePreference; strict?: boolean } = {},
): { args: Record<string, unknown>; applied: string[] } {
  const field = typeof args.text === 'string' ? 'text' : typeof args.body === 'string' ? 'body' : undefined;
  if (!field) return { args, applied: [] };
  const pref = opts.signature && SIGNED(tool, args) ? opts.signature : undefined;
  const lesson = pref
    ? undefined
    : lessons
        .filter((l) => l.tool === tool && l.aspect === 'sign-off' && isActive(l))
        .sort((a, b) => b.seen - a.seen || b.updatedAt.localeCompare(a.updatedAt))[0];
  const sign = pref?.text ?? lesson?.text;
  if (!sign) return { args, applied: [] };
  const signed = withSignOff(String(args[field]), sign, opts.strict ?? false);
  if (signed === undefined) return { args, applied: [] };
  const applied = pref
    ? `Signed with ${pref.owner}’s signature from Settings (“${pref.text.replace(/\n/g, ' / ')}”)`
    : lessonLine(lesson as Lesson);
  return { args: { ...args, [field]: signed }, applied: [applied] };
}

/** The text ending with `sign`: its closing replaced (if it has one), else added; undefined when it already does. */
function withSignOff(text: string, sign: string, strict: boolean): string | undefined {
  const parts = paragraphs(text);
  if (parts.at(-1) === sign.trim()) return undefined;
  const last = parts.at(-1);
  const closing = strict ? !!last && last.length <= 80 && CLOSING_WORDS.test(last) : isClosing(last);
  // A one-paragraph text has no closing of its own: the sign-off is added, never put in place of the text.
  const body = parts.length > 1 && closing && last !== parts[0] ? parts.slice(0, -1) : parts;
  return [...body, sign.trim()].join('\n\n');
}
