import { createHash } from 'node:crypto';

/**
 * The held-apart split (issue 17, "cannot be tuned to"): whether an example is held apart depends only on
 * a hash of its own normalised text, so it is fixed before any training and adding examples never moves
 * an existing one across. Texts that differ only in case or punctuation hash alike and land together.
 */
export const HELD_APART_SHARE = 0.3;

export function normalizeExample(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function isHeldApart(text: string): boolean {
  const digest = createHash('sha256').update(normalizeExample(text)).digest();
  return digest.readUInt32BE(0) / 2 ** 32 < HELD_APART_SHARE;
}

const words = (text: string) => new Set(normalizeExample(text).split(' ').filter(Boolean));

/** Jaccard similarity of the two texts' word sets. */
export function similarity(a: string, b: string): number {
  return jaccard(words(a), words(b));
}

function jaccard(wa: Set<string>, wb: Set<string>): number {
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared += 1;
  const union = wa.size + wb.size - shared;
  return union === 0 ? 1 : shared / union;
}

/** Pairs (held-apart, training) close enough that the held-apart one would be a memory test, not a test. */
export function nearDuplicates(
  heldApart: readonly string[],
  training: readonly string[],
  threshold = 0.7,
): Array<{ heldApart: string; training: string; similarity: number }> {
  const out: Array<{ heldApart: string; training: string; similarity: number }> = [];
  const trainingWords = training.map((t) => [t, words(t)] as const);
  for (const h of heldApart) {
    const wh = words(h);
    for (const [t, wt] of trainingWords) {
      const s = jaccard(wh, wt);
      if (s >= threshold) out.push({ heldApart: h, training: t, similarity: s });
    }
  }
  return out;
}

/**
 * Each text → the first text of its group, where a group links texts at least `threshold` alike (word
 * Jaccard, transitively). Cross-validation keeps a group in one fold, so a fold is tested on texts as far
 * from what it trained on as the held-apart split is from the training split (which has no such pairs).
 */
export function nearDuplicateGroups(texts: readonly string[], threshold = 0.7): Map<string, string> {
  const parent = texts.map((_, i) => i);
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r] as number;
    return r;
  };
  const sets = texts.map(words);
  for (let i = 0; i < texts.length; i += 1)
    for (let j = i + 1; j < texts.length; j += 1)
      if (jaccard(sets[i] as Set<string>, sets[j] as Set<string>) >= threshold) {
        const a = root(i);
        const b = root(j);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
  return new Map(texts.map((t, i) => [t, texts[root(i)] as string]));
}
