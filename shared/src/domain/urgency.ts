/**
 * Urgency of an inbound text, by configurable keywords (SPEC §4). Matching is on word boundaries and
 * case-insensitive; a few patterns catch phrasings keywords miss ("no hot water", "water everywhere").
 */
const PATTERNS = [
  /\bno (heat|heating|hot water|power|electricity)\b/i,
  /\bwater (everywhere|pouring|coming through)\b/i,
  /\b(911|emergency)\b/i,
];

export function judgeUrgency(text: string, keywords: string[]): { urgent: boolean; matched: string[] } {
  const lower = text.toLowerCase();
  const matched = keywords.filter((k) =>
    new RegExp(`\\b${k.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower),
  );
  for (const p of PATTERNS) {
    const m = text.match(p);
    if (m) matched.push(m[0].toLowerCase());
  }
  return { urgent: matched.length > 0, matched: [...new Set(matched)] };
}
