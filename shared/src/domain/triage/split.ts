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

/**
 * Every pair (i of `a`, j of `b`) whose word sets are at least `threshold` alike, without comparing every
 * pair (the corpus's 4,000 × 10,000 took 20 s of the test run): two sets that alike share a word among each
 * one's rarest |s| − ⌈threshold·|s|⌉ + 1 words, words ordered the same way for all (prefix filtering), so
 * only pairs sharing such a word are compared — and each exactly, so the answer is the all-pairs answer.
 * Texts without a word are alike only to each other. `threshold` must be above 0 (at 0 every pair is alike).
 */
function alikePairs(
  a: readonly Set<string>[],
  b: readonly Set<string>[],
  threshold: number,
  onPair: (i: number, j: number, similarity: number) => void,
): void {
  const df = new Map<string, number>();
  for (const set of [...a, ...b]) for (const w of set) df.set(w, (df.get(w) ?? 0) + 1);
  const rank = (w: string) => df.get(w) ?? 0;
  const prefix = (set: Set<string>) =>
    [...set]
      .sort((x, y) => rank(x) - rank(y) || (x < y ? -1 : x > y ? 1 : 0))
      .slice(0, set.size - Math.ceil(threshold * set.size) + 1);
  const index = new Map<string, number[]>();
  const emptyB: number[] = [];
  b.forEach((set, j) => {
    if (!set.size) emptyB.push(j);
    for (const w of prefix(set)) {
      const list = index.get(w);
      if (list) list.push(j);
      else index.set(w, [j]);
    }
  });
  a.forEach((set, i) => {
    const candidates = set.size ? new Set(prefix(set).flatMap((w) => index.get(w) ?? [])) : emptyB;
    for (const j of candidates) {
      const x = jaccard(set, b[j] as Set<string>);
      if (x >= threshold) onPair(i, j, x);
    }
  });
}

/** Pairs (held-apart, training) close enough that the held-apart one would be a memory test, not a test. */
export function nearDuplicates(
  heldApart: readonly string[],
  training: readonly string[],
  threshold = 0.7,
): Array<{ heldApart: string; training: string; similarity: number }> {
  const out: Array<{ heldApart: string; training: string; similarity: number }> = [];
  alikePairs(heldApart.map(words), training.map(words), threshold, (i, j, s) =>
    out.push({ heldApart: heldApart[i] as string, training: training[j] as string, similarity: s }),
  );
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
  alikePairs(sets, sets, threshold, (i, j) => {
    if (i >= j) return;
    const a = root(i);
    const b = root(j);
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  });
  return new Map(texts.map((t, i) => [t, texts[root(i)] as string]));
}
