import { featuresOf, words } from './features';

/**
 * A multinomial logistic regression over the sparse features of features.ts: small enough to ship inside
 * the worker as JSON, read in a millisecond, and trained here in well under a second, deterministically
 * (a seeded order, plain float arithmetic, weights rounded on the way out).
 */
export interface LinearModelJson {
  labels: string[];
  /** The kept features, joined by newlines (one string parses faster than thousands). */
  features: string;
  /** What one step of a stored weight is worth. */
  scale: number;
  /** Row-major, features × labels, each weight quantised to a signed byte; base64. */
  weights: string;
  bias: number[];
  /**
   * Word knowledge distilled from pretrained vectors (vectors.ts): one score row per word, words × labels
   * as signed bytes like `weights`. A message adds each of its words' rows over its number of words.
   */
  lexicon?: { words: string; scale: number; weights: string };
}

/** A dense input beside the sparse features (the message's averaged word vectors). */
export interface DenseInput {
  dim: number;
  embed(text: string): Float64Array;
}

export interface TrainOptions {
  seed: number;
  epochs: number;
  learningRate: number;
  /** L2 penalty applied as weight decay once per epoch. */
  l2: number;
  /** A feature must occur in at least this many training examples to be kept. */
  minCount: number;
  /** What the averaged word vectors are multiplied by (0: not used). */
  vectorScale: number;
  /**
   * A kept feature's largest weight must reach this many quantisation steps (of 127): the model ships in
   * the worker's artifact, and features that barely move a score cost bytes for nothing.
   */
  minWeight: number;
  /** How many words' distilled rows ship (the most decisive first); the worker's artifact pays for each. */
  lexiconSize: number;
  /**
   * The class model learns each emergency kind as its own label (the seven still weigh as one class), and
   * "emergency" is the sum of their probabilities.
   */
  kindLabels?: boolean;
  /** Ship the training examples for the nearest-neighbour opinion (neighbours.ts) beside the class model. */
  neighbours?: boolean;
}

export const DEFAULT_TRAIN_OPTIONS: TrainOptions = {
  seed: 17,
  epochs: 40,
  learningRate: 0.5,
  l2: 0.0005,
  minCount: 2,
  minWeight: 1,
  vectorScale: 0,
  lexiconSize: 0,
};

const BIAS_SCALE = 1000;

/** mulberry32: a tiny seeded PRNG, enough to fix the order examples are presented in. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffleInPlace<T>(items: T[], rnd: () => number): void {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}

function softmax(scores: Float64Array): Float64Array {
  let max = Number.NEGATIVE_INFINITY;
  for (const s of scores) max = Math.max(max, s);
  let sum = 0;
  const out = new Float64Array(scores.length);
  scores.forEach((s, i) => {
    out[i] = Math.exp(s - max);
    sum += out[i] as number;
  });
  for (let i = 0; i < out.length; i += 1) out[i] = (out[i] as number) / sum;
  return out;
}

interface Sample {
  idx: number[];
  /** The dense input, if any (empty otherwise). */
  x: Float64Array;
  offset?: Float64Array | undefined;
  y: number;
}

function vocabulary(featureSets: string[][], minCount: number): string[] {
  const counts = new Map<string, number>();
  for (const fs of featureSets) for (const f of fs) counts.set(f, (counts.get(f) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n >= minCount)
    .map(([f]) => f)
    .sort();
}

/** Each example's features as indexes; every example counts as much as any other (value 1/√n). */
const featureValue = (n: number) => (n ? 1 / Math.sqrt(n) : 0);

/**
 * Trains on `examples`; every group (by default every label) weighs the same in total (a group with few
 * examples counts more per example), so the model does not lean toward whichever class the corpus happens
 * to hold most of. Emergencies are one group over their seven kinds: otherwise seven labels would give
 * "emergency" seven shares of the prior and every dripping tap would lean toward it.
 */
export function trainLinear(
  examples: ReadonlyArray<{ text: string; label: string; group?: string }>,
  options: TrainOptions = DEFAULT_TRAIN_OPTIONS,
  dense?: DenseInput,
  /** Fixed per-label scores added to each example (a distilled lexicon the weights are fitted around). */
  offset?: (text: string, labels: readonly string[]) => Float64Array,
): { model: LinearModelJson; dense: Float64Array } {
  const labels = [...new Set(examples.map((e) => e.label))].sort();
  const featureSets = examples.map((e) => featuresOf(e.text));
  const features = vocabulary(featureSets, options.minCount);
  const index = new Map(features.map((f, i) => [f, i]));
  const samples: Sample[] = examples.map((e, i) => ({
    idx: (featureSets[i] ?? []).flatMap((f) => (index.has(f) ? [index.get(f) as number] : [])),
    x: dense ? dense.embed(e.text) : new Float64Array(0),
    offset: offset?.(e.text, labels),
    y: labels.indexOf(e.label),
  }));
  const groupOf = (e: { label: string; group?: string }) => e.group ?? e.label;
  const groups = [...new Set(examples.map(groupOf))];
  const perGroup = new Map(groups.map((g) => [g, examples.filter((e) => groupOf(e) === g).length]));
  const exampleWeight = examples.map(
    (e) => examples.length / (groups.length * (perGroup.get(groupOf(e)) ?? 1)),
  );
  const K = labels.length;
  const w = new Float64Array(features.length * K);
  const wd = new Float64Array((dense?.dim ?? 0) * K);
  const b = new Float64Array(K);
  const rnd = seededRandom(options.seed);
  const order = samples.map((_, i) => i);
  for (let epoch = 0; epoch < options.epochs; epoch += 1) {
    shuffleInPlace(order, rnd);
    const lr = options.learningRate / (1 + epoch * 0.2);
    for (const i of order) step(samples[i] as Sample, { w, wd, b }, K, lr * (exampleWeight[i] ?? 1));
    const decay = 1 - lr * options.l2 * samples.length ** 0.5;
    for (let j = 0; j < w.length; j += 1) w[j] = (w[j] as number) * decay;
    for (let j = 0; j < wd.length; j += 1) wd[j] = (wd[j] as number) * decay;
  }
  const model = {
    labels,
    ...quantised(features, w, K, options.minWeight),
    bias: Array.from(b, (x) => Math.round(x * BIAS_SCALE) / BIAS_SCALE),
  };
  return { model, dense: wd };
}

/**
 * Weights as signed bytes, and features whose weights all round to zero dropped: the model ships inside the
 * worker, so its size is init time. Rounding to 1/127 of the largest weight costs nothing measurable.
 */
function quantised(
  features: string[],
  w: Float64Array,
  K: number,
  minWeight: number,
): Pick<LinearModelJson, 'features' | 'scale' | 'weights'> {
  let max = 0;
  for (const x of w) max = Math.max(max, Math.abs(x));
  const scale = Math.round((max / 127) * 1e6) / 1e6 || 1;
  const kept: string[] = [];
  const bytes: number[] = [];
  features.forEach((f, i) => {
    const row = Array.from({ length: K }, (_, k) => Math.round((w[i * K + k] as number) / scale));
    if (row.every((x) => Math.abs(x) < minWeight)) return;
    kept.push(f);
    bytes.push(...row);
  });
  return {
    features: kept.join('\n'),
    scale,
    weights: Buffer.from(Int8Array.from(bytes).buffer).toString('base64'),
  };
}

/** One SGD step of softmax regression; `wd` are the dense input's weights, dim × labels. */
function step(
  s: Sample,
  { w, wd, b }: { w: Float64Array; wd: Float64Array; b: Float64Array },
  K: number,
  lr: number,
): void {
  const v = featureValue(s.idx.length);
  const scores = new Float64Array(b);
  s.offset?.forEach((o, k) => {
    scores[k] = (scores[k] as number) + o;
  });
  for (const f of s.idx)
    for (let k = 0; k < K; k += 1) scores[k] = (scores[k] as number) + (w[f * K + k] as number) * v;
  s.x.forEach((x, d) => {
    for (let k = 0; k < K; k += 1) scores[k] = (scores[k] as number) + (wd[d * K + k] as number) * x;
  });
  const p = softmax(scores);
  for (let k = 0; k < K; k += 1) {
    const g = (p[k] as number) - (k === s.y ? 1 : 0);
    if (g === 0) continue;
    b[k] = (b[k] as number) - lr * g;
    for (const f of s.idx) w[f * K + k] = (w[f * K + k] as number) - lr * g * v;
    s.x.forEach((x, d) => {
      wd[d * K + k] = (wd[d * K + k] as number) - lr * g * x;
    });
  }
}

export interface LinearPrediction {
  /** Every label's probability, the same order as `model.labels`. */
  probabilities: Record<string, number>;
  /** Words of the message that pushed hardest toward `label`. */
  cues(label: string, n: number): string[];
}

/** A loaded model: the feature index is built once, then each message costs a few hundred lookups. */
export function loadLinear(model: LinearModelJson): (text: string) => LinearPrediction {
  const features = model.features.split('\n');
  const index = new Map(features.map((f, i) => [f, i]));
  const raw = Buffer.from(model.weights, 'base64');
  const weights = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const K = model.labels.length;
  const lexicon = model.lexicon ? loadLexicon(model.lexicon, K) : undefined;
  return (text) => {
    const idx = featuresOf(text).flatMap((f) => (index.has(f) ? [index.get(f) as number] : []));
    const v = featureValue(idx.length);
    const scores = new Float64Array(model.bias);
    for (const f of idx) {
      for (let k = 0; k < K; k += 1)
        scores[k] = (scores[k] as number) + (weights[f * K + k] ?? 0) * model.scale * v;
    }
    lexicon?.(text, scores);
    const p = softmax(scores);
    return {
      probabilities: Object.fromEntries(model.labels.map((l, k) => [l, p[k] as number])),
      cues(label, n) {
        // A class learnt as several labels (emergency kinds) weighs a word by its strongest label.
        const ks = model.labels.flatMap((l, k) => (l === label || l.startsWith(`${label}.`) ? [k] : []));
        const weightOf = (f: number) => Math.max(...ks.map((k) => weights[f * K + k] ?? 0));
        return idx
          .filter((f) => features[f]?.startsWith('w:'))
          .map((f) => ({ word: (features[f] as string).slice(2), weight: weightOf(f) }))
          .filter((c) => c.weight > 0)
          .sort((a, c) => c.weight - a.weight)
          .slice(0, n)
          .map((c) => c.word);
      },
    };
  };
}

/** The distilled word table: adds each known word's row to `scores`, over the message's number of words. */
export function loadLexicon(
  lexicon: NonNullable<LinearModelJson['lexicon']>,
  K: number,
): (text: string, scores: Float64Array) => void {
  const row = new Map(lexicon.words.split('\n').map((w, i) => [w, i]));
  const raw = Buffer.from(lexicon.weights, 'base64');
  const weights = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  return (text, scores) => {
    const ws = words(text);
    for (const w of ws) {
      const r = row.get(w);
      if (r === undefined) continue;
      for (let k = 0; k < K; k += 1)
        scores[k] = (scores[k] as number) + ((weights[r * K + k] ?? 0) * lexicon.scale) / ws.length;
    }
  };
}
