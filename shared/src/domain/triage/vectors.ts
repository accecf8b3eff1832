import { words } from './features';

/**
 * Word vectors at training time (issue 17): the corpus has a few dozen examples a class, so a bag of words
 * knows only the words its examples used. Pretrained vectors place "ambulance" near "paramedics" and
 * "gushing" near "pouring"; a message's average vector lets the trained weights reach words no example
 * used. The worker never holds the vectors: because the model is linear in that average, training distils
 * them into one small score row per word (train.ts, `lexicon`), which is all that ships.
 */
export interface WordVectors {
  /** Most frequent first: a word's rank sets its weight. */
  words: string[];
  dim: number;
  /** What one step of a stored component is worth (vectors are unit length before quantising). */
  scale: number;
  /** Row-major, words × dim. */
  data: Int8Array;
}

/**
 * Smooth inverse frequency: a word as common as "the" says little, a rare one much. `p` is the word's
 * share of text by Zipf's law from its rank; `a / (a + p)` is the usual weighting of averaged word vectors.
 */
const SIF_A = 0.001;
export function frequencyWeight(rank: number): number {
  const p = 1 / ((rank + 10) * Math.log(150_000));
  return SIF_A / (SIF_A + p);
}

/** Builds `embed(text)`: the weighted sum of the message's word vectors over its number of words. */
export function vectorEmbedder(wv: WordVectors): { dim: number; embed(text: string): Float64Array } {
  const rank = new Map(wv.words.map((w, i) => [w, i]));
  return {
    dim: wv.dim,
    embed(text) {
      const out = new Float64Array(wv.dim);
      const ws = words(text);
      for (const w of ws) {
        const r = rank.get(w);
        if (r === undefined) continue;
        const a = (frequencyWeight(r) * wv.scale) / ws.length;
        for (let d = 0; d < wv.dim; d += 1) out[d] = (out[d] as number) + a * (wv.data[r * wv.dim + d] ?? 0);
      }
      return out;
    },
  };
}
