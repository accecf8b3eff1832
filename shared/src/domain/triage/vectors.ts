import { words } from './features';

/**
 * Word vectors at training time (issue 17, an experiment the shipped model does not use): the corpus has a
 * few dozen examples a class, so a bag of words knows only the words its examples used. Pretrained vectors
 * place "ambulance" near "paramedics"; a message's average vector lets the trained weights reach words no
 * example used. Because the model is linear in that average, training distils the vectors into one score
 * row per word (train.ts, `lexicon`), so the worker would never hold the vectors themselves.
 * Measured on 5-fold cross-validation of the training split (fifth session): +0.5 to +1.0 point of accuracy
 * with all 20,000 words' rows (~480 KB, where the worker's artifact had 16 KB left under its 5 MiB), and
 * +0.2 point (noise) with the 2,000 most decisive rows that would fit; so vectors are not shipped. Run
 * `npm run triage:vectors` then `npm run triage:cv -- '{"vectorScale":1,"lexiconSize":20000}'` to redo it.
 * Clusters of the same vectors as sparse features (eighth session, commit 3aae875) gained no more: see
 * features.ts.
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
