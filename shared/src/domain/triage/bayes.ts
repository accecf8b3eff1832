import { bucketsOf, decodedIndex, find, type NeighboursJson } from './neighbours';

/**
 * Naive Bayes over the training examples that already ship for the nearest-neighbour opinion (issue 17): a
 * third opinion among the routine classes, at no cost in bytes. The inverted index holds, for each hashed
 * feature, the examples that have it, and each example's class; so how many examples of each class have a
 * feature is one pass over it when the index is loaded. Multinomial naive Bayes over those counts (each
 * example's features counted once, Lidstone smoothing `alpha`, every class the same prior) reads each
 * feature on its own like the class model, but its weights are counts, not fitted: it leans on rare
 * features that occur in one class only, which the class model's regularisation shrinks. Chosen on grouped
 * cross-validation of the training split: the settings are in classifier.ts.
 */
export interface BayesOptions {
  /** Lidstone smoothing: what a class that never had a feature is credited with. */
  alpha: number;
  /** The summed log-likelihoods are divided by √(features found) and multiplied by this before the softmax. */
  temperature: number;
}

/** Each bucket's count of examples by class (`counts[at * L + class]`), and each class's total. */
function classCounts(json: NeighboursJson): { counts: Uint16Array; totals: Float64Array } {
  const { starts, members } = decodedIndex(json);
  const classOf = Buffer.from(json.classes, 'base64');
  const L = json.labels.length;
  const counts = new Uint16Array(json.buckets * L);
  const totals = new Float64Array(L);
  for (let at = 0; at < json.buckets; at += 1) {
    for (let j = starts[at] as number; j < (starts[at + 1] as number); j += 1) {
      const c = classOf[members[j] as number] as number;
      counts[at * L + c] = (counts[at * L + c] as number) + 1;
      totals[c] = (totals[c] as number) + 1;
    }
  }
  return { counts, totals };
}

/** Loads the opinion from the shipped index; for a text, each class's probability (uniform if nothing is known). */
export function loadBayes(
  json: NeighboursJson,
  { alpha, temperature }: BayesOptions,
): (text: string) => Record<string, number> {
  const { keys } = decodedIndex(json);
  const { counts, totals } = classCounts(json);
  const L = json.labels.length;
  const logDenominator = Array.from(totals, (t) => Math.log(t + alpha * json.buckets));
  return (text) => {
    const scores = new Float64Array(L);
    let found = 0;
    for (const b of bucketsOf(text, json.bits)) {
      const at = find(keys, b);
      if (at < 0) continue;
      found += 1;
      for (let c = 0; c < L; c += 1)
        scores[c] =
          (scores[c] as number) +
          Math.log((counts[at * L + c] as number) + alpha) -
          (logDenominator[c] as number);
    }
    const t = found ? temperature / Math.sqrt(found) : 0;
    let max = Number.NEGATIVE_INFINITY;
    for (const s of scores) max = Math.max(max, s * t);
    const p = Array.from(scores, (s) => Math.exp(s * t - max));
    const sum = p.reduce((a, x) => a + x, 0);
    return Object.fromEntries(json.labels.map((l, c) => [l, (p[c] as number) / sum]));
  };
}
