import emojiRegex from 'emoji-regex';

/**
 * Whether an inbound text is a reaction to an earlier message rather than something a person wrote.
 *
 * Quo documents no reaction event or field for webhooks (test/contracts/vendor/quo/README.md), so a contact's
 * reaction reaches the line as an ordinary text, in one of two forms:
 * - a tapback phrase quoting the message reacted to: `Liked “…”`, `Laughed at “…”`, `Reacted 😂 to “…”`,
 *   `Removed a heart from “…”`, or the emoji form `👍 to “…”`;
 * - a text that is exactly one emoji (`👍`, `❤️`, `👍🏽`).
 * Anything else is a text, however it begins: "🚨 Water pouring through the ceiling" must reach a person.
 */
export type Reaction = { form: 'tapback' | 'emoji'; emoji: string | null };

const QUOTED = String.raw`\s*[“"'‘].*[”"'’]\s*$`;
const VERBS = 'Liked|Loved|Disliked|Laughed at|Emphasi[sz]ed|Questioned';
const TAPBACK = new RegExp(`^(?:${VERBS})${QUOTED}`, 'su');
const REACTED = new RegExp(`^(?:Reacted\\s+)?(\\S+)\\s+to${QUOTED}`, 'su');
const REMOVED = new RegExp(`^Removed (?:an? |the )?[\\p{L} ]{1,30} from${QUOTED}`, 'su');

export function reactionOf(text: string): Reaction | null {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > 2000) return null;
  const only = singleEmoji(trimmed);
  if (only) return { form: 'emoji', emoji: only };
  if (TAPBACK.test(trimmed) || REMOVED.test(trimmed)) return { form: 'tapback', emoji: null };
  // "Reacted 👍 to “…”" and "👍 to “…”": the emoji must be a whole emoji and the rest a quotation.
  const emoji = REACTED.exec(trimmed)?.[1];
  if (emoji && singleEmoji(emoji)) return { form: 'tapback', emoji };
  return null;
}

/** The text itself when it is exactly one emoji (ZWJ sequences, skin tones and flags count as one). */
function singleEmoji(s: string): string | null {
  const matches = s.match(emojiRegex());
  return matches?.length === 1 && matches[0] === s ? s : null;
}
