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
 * between two of the ~16,000 training features is rare, and at worst links two examples a little), and the
 * inverted index itself ships, gap- and varint-coded, with each example's norm: the first triage in a cold
 * container decodes it in one pass and computes nothing else. Similarity is the cosine of idf-weighted
 * feature sets, idf counted over the examples.
 */
export interface NeighboursJson {
  /** Bits of the feature hash. */
  bits: number;
  /** The classes, in the order `classes` indexes them. */
  labels: string[];
  /** One byte per example: its class's index in `labels`; base64. */
  classes: string;
  /** How many buckets the index has, and how many (bucket, example) entries. */
  buckets: number;
  entries: number;
  /**
   * The inverted index, bucket by bucket in ascending order: the bucket's gap from the one before, its number
   * of examples, then each example's gap from the one before (the first from -1), all varints; base64.
   */
  index: string;
  /** Each example's norm (the square root of its buckets' summed squared idf), float32; base64. */
  norms: string;
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

export function bucketsOf(text: string, bits: number): number[] {
  return [...new Set(featuresOf(text).map((f) => bucketOf(f, bits)))];
}

/** A bucket's weight: its idf, squared (it counts once in the message and once in the example). */
const weightOf = (examples: number, withBucket: number) => Math.log((examples + 1) / (withBucket + 1)) ** 2;

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
  const perExample = examples.map((e) => bucketsOf(e.text, BITS));
  const members = new Map<number, number[]>();
  perExample.forEach((buckets, i) => {
    for (const b of buckets) {
      const list = members.get(b);
      if (list) list.push(i);
      else members.set(b, [i]);
    }
  });
  const bytes: number[] = [];
  let previous = 0;
  let entries = 0;
  for (const b of [...members.keys()].sort((x, y) => x - y)) {
    const list = members.get(b) as number[];
    pushVarint(bytes, b - previous);
    pushVarint(bytes, list.length);
    let last = -1;
    for (const i of list) {
      pushVarint(bytes, i - last);
      last = i;
    }
    previous = b;
    entries += list.length;
  }
  const norms = Float32Array.from(perExample, (buckets) =>
    Math.sqrt(buckets.reduce((sum, b) => sum + weightOf(examples.length, members.get(b)?.length ?? 0), 0)),
  );
  return {
    bits: BITS,
    labels,
    classes: Buffer.from(Uint8Array.from(examples.map((e) => labels.indexOf(e.label)))).toString('base64'),
    buckets: members.size,
    entries,
    index: Buffer.from(Uint8Array.from(bytes)).toString('base64'),
    norms: Buffer.from(norms.buffer).toString('base64'),
  };
}

/** The shipped index as typed arrays: bucket `keys[k]` holds `members[starts[k]]` to `members[starts[k + 1] - 1]`. */
export interface DecodedIndex {
  keys: Int32Array;
  starts: Int32Array;
  members: Int32Array;
}

/** Decoded once per shipped index, however many opinions read it (the neighbours here, bayes.ts). */
const decoded = new WeakMap<NeighboursJson, DecodedIndex>();

export function decodedIndex(json: NeighboursJson): DecodedIndex {
  let index = decoded.get(json);
  if (!index) {
    index = decodeIndex(json);
    decoded.set(json, index);
  }
  return index;
}

function decodeIndex(json: NeighboursJson): DecodedIndex {
  const raw = Buffer.from(json.index, 'base64');
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
  const keys = new Int32Array(json.buckets);
  const starts = new Int32Array(json.buckets + 1);
  const members = new Int32Array(json.entries);
  let bucket = 0;
  let filled = 0;
  for (let k = 0; k < json.buckets; k += 1) {
    bucket += varint();
    keys[k] = bucket;
    starts[k] = filled;
    let member = -1;
    for (let n = varint(); n > 0; n -= 1) {
      member += varint();
      members[filled] = member;
      filled += 1;
    }
  }
  starts[json.buckets] = filled;
  return { keys, starts, members };
}

/** Where `bucket` is in the sorted `keys`, or -1. */
export function find(keys: Int32Array, bucket: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const key = keys[mid] as number;
    if (key === bucket) return mid;
    if (key < bucket) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Loads the shipped index (on the first triage of a cold container) and returns, for a text, each class's
 * share of the similarity of its `k` nearest examples (all zero when nothing is alike).
 */
export function loadNeighbours(json: NeighboursJson, k: number): (text: string) => Record<string, number> {
  const { keys, starts, members } = decodedIndex(json);
  const classOf = Buffer.from(json.classes, 'base64');
  const normBytes = Buffer.from(json.norms, 'base64');
  const norms = new Float32Array(normBytes.buffer, normBytes.byteOffset, normBytes.byteLength / 4);
  const n = classOf.length;
  // One score per example, reused by every call (a call is synchronous): cleared through `touched`.
  const scores = new Float64Array(n);
  const touched: number[] = [];
  return (text) => {
    for (const b of bucketsOf(text, json.bits)) {
      const at = find(keys, b);
      if (at < 0) continue;
      const from = starts[at] as number;
      const to = starts[at + 1] as number;
      const w = weightOf(n, to - from);
      for (let j = from; j < to; j += 1) {
        const i = members[j] as number;
        if (scores[i] === 0) touched.push(i);
        scores[i] = (scores[i] as number) + w;
      }
    }
    const nearest = topK(touched, (i) => (scores[i] as number) / ((norms[i] as number) || 1), k);
    for (const i of touched) scores[i] = 0;
    touched.length = 0;
    const out: Record<string, number> = Object.fromEntries(json.labels.map((l) => [l, 0]));
    const total = nearest.reduce((s, [, x]) => s + x, 0);
    if (total <= 0) return out;
    for (const [i, x] of nearest) {
      const label = json.labels[classOf[i] as number] as string;
      out[label] = (out[label] as number) + x / total;
    }
    return out;
  };
}

/**
 * The `k` items with the highest score, highest first (ties to the lower index): one pass with a short
 * sorted list, since k is a handful and a call can touch most of the examples. The query's own norm is the
 * same for every example, so it does not change the order or the shares.
 */
function topK(items: readonly number[], score: (i: number) => number, k: number): Array<[number, number]> {
  const top: Array<[number, number]> = [];
  for (const i of items) {
    const x = score(i);
    if (top.length === k && !beats([i, x], top[k - 1] as [number, number])) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && beats([i, x], top[at - 1] as [number, number])) at -= 1;
    top.splice(at, 0, [i, x]);
    if (top.length > k) top.pop();
  }
  return top;
}

const beats = (a: [number, number], b: [number, number]) => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0]);
