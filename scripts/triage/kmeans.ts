/**
 * Seeded spherical k-means (cosine) for the triage word clusters (scripts/triage/clusters.ts). Build time
 * only: the worker ships the resulting word → cluster table, never vectors. Deterministic: k-means++
 * seeding from a fixed PRNG, ties broken by index, plain float arithmetic in a fixed order.
 */

/** mulberry32, as in linear.ts: a tiny seeded PRNG. */
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

export interface Points {
  n: number;
  dim: number;
  /** Row-major, n × dim, each row unit length. */
  data: Float64Array;
  /** How much each point counts (a fine cluster's size when clustering centroids); 1 by default. */
  weight?: Float64Array;
}

function dot(a: Float64Array, i: number, b: Float64Array, j: number, dim: number): number {
  let s = 0;
  for (let d = 0; d < dim; d += 1) s += (a[i * dim + d] as number) * (b[j * dim + d] as number);
  return s;
}

function normaliseRows(m: Float64Array, dim: number): void {
  for (let r = 0; r < m.length / dim; r += 1) {
    let s = 0;
    for (let d = 0; d < dim; d += 1) s += (m[r * dim + d] as number) ** 2;
    const norm = Math.sqrt(s) || 1;
    for (let d = 0; d < dim; d += 1) m[r * dim + d] = (m[r * dim + d] as number) / norm;
  }
}

/** k-means++ on cosine distance (1 − cos): each next centre drawn with probability ∝ distance² × weight. */
function seedCentres(p: Points, k: number, rnd: () => number): Float64Array {
  const { n, dim, data } = p;
  const c = new Float64Array(k * dim);
  const dist = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  let pick = Math.floor(rnd() * n);
  for (let j = 0; j < k; j += 1) {
    c.set(data.subarray(pick * dim, (pick + 1) * dim), j * dim);
    let total = 0;
    for (let i = 0; i < n; i += 1) {
      const d = Math.max(0, 1 - dot(data, i, c, j, dim));
      if (d * d < (dist[i] as number)) dist[i] = d * d;
      total += (dist[i] as number) * (p.weight?.[i] ?? 1);
    }
    let target = rnd() * total;
    pick = n - 1;
    for (let i = 0; i < n; i += 1) {
      target -= (dist[i] as number) * (p.weight?.[i] ?? 1);
      if (target <= 0) {
        pick = i;
        break;
      }
    }
  }
  return c;
}

/** Each point's nearest centre (highest cosine); the lowest index wins a tie. */
function assign(p: Points, c: Float64Array, k: number, out: Int32Array): number {
  let changed = 0;
  for (let i = 0; i < p.n; i += 1) {
    let best = 0;
    let bestSim = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j += 1) {
      const s = dot(p.data, i, c, j, p.dim);
      if (s > bestSim) {
        bestSim = s;
        best = j;
      }
    }
    if (out[i] !== best) changed += 1;
    out[i] = best;
  }
  return changed;
}

/** Centres become their members' normalised (weighted) mean; an empty cluster keeps its old centre. */
function update(p: Points, c: Float64Array, k: number, of: Int32Array): void {
  const sum = new Float64Array(k * p.dim);
  const count = new Float64Array(k);
  for (let i = 0; i < p.n; i += 1) {
    const j = of[i] as number;
    const w = p.weight?.[i] ?? 1;
    count[j] = (count[j] as number) + w;
    for (let d = 0; d < p.dim; d += 1)
      sum[j * p.dim + d] = (sum[j * p.dim + d] as number) + w * (p.data[i * p.dim + d] as number);
  }
  for (let j = 0; j < k; j += 1) if (count[j]) c.set(sum.subarray(j * p.dim, (j + 1) * p.dim), j * p.dim);
  normaliseRows(c, p.dim);
}

/** Clusters `p` into `k` groups: each point's cluster, and the unit-length centres. */
export function kmeans(
  p: Points,
  k: number,
  { seed = 17, maxIterations = 30 }: { seed?: number; maxIterations?: number } = {},
): { of: Int32Array; centres: Float64Array } {
  const rnd = seededRandom(seed);
  const centres = seedCentres(p, k, rnd);
  const of = new Int32Array(p.n).fill(-1);
  for (let it = 0; it < maxIterations; it += 1) {
    const changed = assign(p, centres, k, of);
    if (changed <= p.n / 1000) break;
    update(p, centres, k, of);
  }
  return { of, centres };
}

export { normaliseRows };
