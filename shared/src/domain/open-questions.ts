/** The reply's plain word on what it cannot answer yet, or ''. */
export const unansweredNote = (open: readonly string[]) =>
  open.length
    ? ` We don't have the answer to ${open.map((q) => `“${q}”`).join(' or ')} yet — someone from our team will get back to you on it.`
    : '';

/**
 * What a reply to a lead answers on its own: availability, a viewing (the calendar's times), pets (the
 * policy's verdict). Other questions are for a person.
 */
const ANSWERED =
  /\b(available|availability|vacanc(?:y|ies)|openings?|anything|any units?|accepting applications|what do you have|rented|taken|still (?:for rent|for lease|open|up|on the market|listed)|see|view(?:ing)?|tour|show(?:ing)?|come (?:by|over|in)|visit|pets?|dogs?|cats?|animals?)\b/i;
/** Where a texted question starts after a preamble ("I saw your listing, what's the rent?"). */
const ASKS = /,\s+(?=(?:what(?:'s|s)?|how|is|are|do|does|can|could|will|would|when|where|which|who|any)\b)/i;
const MAX_QUOTED = 2;

/**
 * The questions a lead asked that the reply cannot answer from the policy or the calendar ("is it on the
 * ground floor?", "is parking included?"): quoted back with a promise of a person's answer, never ignored.
 */
export function openQuestions(texts: readonly string[]): string[] {
  return texts
    .flatMap((t) => t.split(/\n+|(?<=[.!?])\s+/))
    .map((s) => (s.split(ASKS).at(-1) ?? s).trim())
    .filter((s) => s.length > 3 && s.endsWith('?') && !ANSWERED.test(s))
    .slice(0, MAX_QUOTED)
    .map((s) => (s.length > 80 ? `${s.slice(0, 78).trimEnd()}…?` : s));
}
