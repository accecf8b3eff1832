import type { TriageModelJson } from '../../shared/src/domain/triage/train';
import type { WordVectors } from '../../shared/src/domain/triage/vectors';

/**
 * Experiment (issue 17): a word the model never saw is read as the nearest word it knows, by cosine of
 * pretrained vectors, when that is at least `minCosine`. `vocab` bounds which unknown words get one.
 */
export function nearestKnown(
  wv: WordVectors,
  minCosine: number,
  vocab: number,
): (model: TriageModelJson) => Map<string, string> {
  const n = Math.min(vocab, wv.words.length);
  const unit = new Float64Array(wv.words.length * wv.dim);
  for (let r = 0; r < wv.words.length; r += 1) {
    let s = 0;
    for (let d = 0; d < wv.dim; d += 1) s += (wv.data[r * wv.dim + d] ?? 0) ** 2;
    const norm = Math.sqrt(s) || 1;
    for (let d = 0; d < wv.dim; d += 1) unit[r * wv.dim + d] = (wv.data[r * wv.dim + d] ?? 0) / norm;
  }
  const rank = new Map(wv.words.map((w, i) => [w, i]));
  return (model) => {
    const known = model.classes.features
      .split('\n')
      .filter((f) => f.startsWith('w:'))
      .map((f) => f.slice(2));
    const knownRows = known.flatMap((w) => (rank.has(w) ? [[w, rank.get(w) as number] as const] : []));
    const knownSet = new Set(known);
    const out = new Map<string, string>();
    for (let r = 0; r < n; r += 1) {
      const w = wv.words[r] as string;
      if (knownSet.has(w)) continue;
      let best = '';
      let bestSim = minCosine;
      for (const [k, kr] of knownRows) {
        let s = 0;
        for (let d = 0; d < wv.dim; d += 1)
          s += (unit[r * wv.dim + d] as number) * (unit[kr * wv.dim + d] as number);
        if (s > bestSim) {
          bestSim = s;
          best = k;
        }
      }
      if (best) out.set(w, best);
    }
    return out;
  };
}
