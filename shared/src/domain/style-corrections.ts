import { greetingOf, isClosing, sentences } from './draft-style';

/**
 * What an approved edit corrected in the draft's style (cards #18): its closing, its greeting, or one
 * sentence of the template said another way. Each is counted into a lesson (lessons.ts) and, seen on two
 * cards of the same kind, applied by draft-style.ts. Pure.
 */

const paragraphs = (t: string) =>
  t
    .trim()
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);

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

/** The salutation the edit swapped in ("Hi" → "Hello"), when both open with one and they differ. */
export function greetingCorrection(drafted: string, approved: string): string | undefined {
  const was = greetingOf(drafted);
  const now = greetingOf(approved);
  return was && now && was !== now ? now : undefined;
}

/** The body without its closing, its greeting word put back to the draft's (so it is not a "phrasing"). */
function bodyOf(text: string, greeting: string | undefined): string {
  const parts = paragraphs(text);
  const body = parts.length > 1 && isClosing(parts.at(-1)) ? parts.slice(0, -1) : parts;
  const joined = body.join('\n\n');
  const had = greetingOf(joined);
  return had && greeting ? `${greeting}${joined.trimStart().slice(had.length)}` : joined;
}

/**
 * One sentence of the draft replaced by another, everything else kept: `{ from, to }`. More than one change
 * (a rewrite), an added or removed sentence, or a change only of the greeting or closing is not a phrasing
 * lesson — a template sentence said the team's way is what recurs on the next draft.
 */
export function phrasingCorrection(
  drafted: string,
  approved: string,
): { from: string; to: string } | undefined {
  const greeting = greetingOf(drafted);
  const before = sentences(bodyOf(drafted, greeting));
  const after = sentences(bodyOf(approved, greeting));
  if (before.length !== after.length) return undefined;
  const changed = before.flatMap((s, i) => (s === after[i] ? [] : [i]));
  if (changed.length !== 1) return undefined;
  const i = changed[0] as number;
  const from = before[i] as string;
  const to = after[i] as string;
  // The greeting sentence carries the person's name: it recurs only for them, and the greeting has its own lesson.
  if (i === 0 && greeting) return undefined;
  if (from.length < 12 || to.length < 3 || to.length > 300) return undefined;
  return { from, to };
}
