import { featuresOf } from './features';

/**
 * The training examples themselves, as a second opinion beside the linear model (issue 17). A linear model
 * gives each feature one weight per class, so a message is the sum of its words; the nearest training
 * examples answer a different question — which messages does this one read most like, as a whole — and
 * catch phrasings whose words pull apart but whose combination a few examples share ("is the unit on the
 * ground floor? my knees are bad" reads like a lead's questions, not a tenant's repair). Chosen on grouped
 * cross-validation of the training split (`npm run triage:cv`): the k and the blend weight are in
 * classifier.ts.
 *
 * What ships is small and needs no feature strings: each feature is hashed into 2^18 buckets (a collision
 * between two of the ~16,000 training features is rare, and at worst links two examples a little), each
 * example is its class and its sorted buckets, delta- and varint-coded. Similarity is the cosine of
 * idf-weighted feature sets, with idf counted from the examples at load.
 */
export interface NeighboursJson {
  /** Bits of the feature hash. */
  bits: number;
  /** The classes, in the order `classes` indexes them. */
  labels: string[];
  /** One byte per example: its class's index in `labels`; base64. */
  classes: string;
  /** Per example: its number of buckets, then each bucket's gap from the one before, all as varints; base64. */
  postings: string;
}

const BITS = 18;

/** FNV-1a over the feature string's UTF-16 code units: fast, deterministic, and the same at build and run. */
function bucketOf(feature: string, bits: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i += 1) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) & ((1 << bits) - 1);
}

function bucketsOf(text: string, bits: number): number[] {
  return [...new Set(featuresOf(text).map((f) => bucketOf(f, bits)))].sort((a, b) => a - b);
}

function pushVarint(out: number[], n: number): void {
  let x = n;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
}

/** Builds what ships from the training examples (each with its class, not its emergency kind). */
export function buildNeighbours(examples: ReadonlyArray<{ text: string; label: string }>): NeighboursJson {
  const labels = [...new Set(examples.map((e) => e.label))].sort();
  const bytes: number[] = [];
  for (const e of examples) {
    const buckets = bucketsOf(e.text, BITS);
    pushVarint(bytes, buckets.length);
    let previous = 0;
    for (const b of buckets) {
      pushVarint(bytes, b - previous);
      previous = b;
    }
  }
  return {
    bits: BITS,
    labels,
    classes: Buffer.from(Uint8Array.from(examples.map((e) => labels.indexOf(e.label)))).toString('base64'),
    postings: Buffer.from(Uint8Array.from(bytes)).toString('base64'),
  };
}

function decodePostings(json: NeighboursJson): number[][] {
  const raw = Buffer.from(json.postings, 'base64');
  let at = 0;
  const varint = () => {
    let n = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = raw[at] as number;
      at += 1;
      n |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return n;
  };
  const examples: number[][] = [];
  while (at < raw.length) {
    const count = varint();
    const buckets: number[] = [];
    let previous = 0;
    for (let i = 0; i < count; i += 1) {
      previous += varint();
      buckets.push(previous);
    }
    examples.push(buckets);
  }
  return examples;
}

/**
 * Loads the shipped examples into an inverted index (bucket → examples) and returns, for a text, each
 * class's share of the similarity of its `k` nearest examples (all zero when nothing is alike).
 */
export function loadNeighbours(json: NeighboursJson, k: number): (text: string) => Record<string, number> {
  const examples = decodePostings(json);
  const classOf = Buffer.from(json.classes, 'base64');
  const index = new Map<number, number[]>();
  examples.forEach((buckets, i) => {
    for (const b of buckets) {
      const list = index.get(b);
      if (list) list.push(i);
      else index.set(b, [i]);
    }
  });
  const idf = (b: number) => Math.log((examples.length + 1) / ((index.get(b)?.length ?? 0) + 1));
  const norms = examples.map((buckets) => Math.sqrt(buckets.reduce((s, b) => s + idf(b) ** 2, 0)) || 1);
  return (text) => {
    const scores = new Map<number, number>();
    let queryNorm = 0;
    for (const b of bucketsOf(text, json.bits)) {
      const list = index.get(b);
      if (!list) continue;
      const w = idf(b) ** 2;
      queryNorm += w;
      for (const i of list) scores.set(i, (scores.get(i) ?? 0) + w);
    }
    const nearest = [...scores]
      .map(([i, s]) => [i, s / ((norms[i] as number) * (Math.sqrt(queryNorm) || 1))] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k);
    const out: Record<string, number> = Object.fromEntries(json.labels.map((l) => [l, 0]));
    const total = nearest.reduce((s, [, x]) => s + x, 0);
    if (total <= 0) return out;
    for (const [i, s] of nearest) {
      const label = json.labels[classOf[i] as number] as string;
      out[label] = (out[label] as number) + s / total;
    }
    return out;
  };
}
