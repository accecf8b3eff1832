import { createHash } from 'node:crypto';

/**
 * Lessons the assistant learns from the team's decisions (cards #18), as files in the memory workspace
 * (`lessons/`, written only by system code — a protected path) with an index in MEMORY.md. Pure: the file
 * format and the index. Reading a correction out of a decision: style-corrections.ts; applying the style
 * lessons to a rules-mode draft: draft-style.ts.
 *
 * Style lessons — once the same correction was made on LESSON_ACTIVE_AT cards of the same kind, rules mode
 * writes it into every such draft, and the card says so:
 * - `sign-off`: an approved edit changed or added the draft's closing ("— Sam, Oak Properties");
 * - `greeting`: it changed the opening salutation ("Hi Maria," → "Hello Maria,");
 * - `phrasing`: it replaced one sentence of the template with another (`from` → `text`).
 * - `note`: a deny reason or a redraft instruction ("don't promise a time"), kept as said; the model reads
 *   it (MEMORY.md index) in Claude mode. Rules mode applies no notes: it cannot know what they mean.
 */

export type LessonAspect = 'sign-off' | 'greeting' | 'phrasing' | 'note';

export interface Lesson {
  /** The write it is about: `send_message`, `send_email`, … */
  tool: string;
  aspect: LessonAspect;
  /** The sign-off, greeting word or sentence to use, or the note as the person wrote it. */
  text: string;
  /** A phrasing lesson: the template's sentence that `text` replaces. */
  from?: string;
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
const ASPECTS: LessonAspect[] = ['sign-off', 'greeting', 'phrasing', 'note'];
const TOOL_WORDS: Record<string, string> = {
  send_message: 'text messages',
  send_email: 'emails',
  schedule_followup: 'scheduled texts',
};
const kindWords = (tool: string) => TOOL_WORDS[tool] ?? tool.replace(/_/g, ' ');

export function lessonPath(l: Pick<Lesson, 'tool' | 'aspect' | 'text' | 'from'>): string {
  const key = `${l.from ? `${l.from.trim()}\u0000` : ''}${l.text.trim()}`.toLowerCase();
  const h = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return `${LESSONS_DIR}/${l.tool}-${l.aspect}-${h}.md`;
}

export function isActive(l: Lesson): boolean {
  return l.aspect === 'note' || l.seen >= LESSON_ACTIVE_AT;
}

const made = (l: Lesson) =>
  `made ${l.seen}× on approval${isActive(l) ? '' : `; applies from ${LESSON_ACTIVE_AT}`}`;

/** The lesson as a person reads it in one line (the PWA list and the MEMORY.md index). */
export function lessonLine(l: Lesson): string {
  if (l.aspect === 'sign-off')
    return `Sign ${kindWords(l.tool)} off with “${l.text.replace(/\n/g, ' / ')}” (${made(l)})`;
  if (l.aspect === 'greeting') return `Open ${kindWords(l.tool)} with “${l.text} …” (${made(l)})`;
  if (l.aspect === 'phrasing')
    return `In ${kindWords(l.tool)}, say “${l.text}” instead of “${l.from ?? ''}” (${made(l)})`;
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
    const aspect = ASPECTS.find((a) => a === v.aspect);
    if (!aspect) return undefined;
    return {
      tool: v.tool,
      aspect,
      text: v.text,
      ...(typeof v.from === 'string' ? { from: v.from } : {}),
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
