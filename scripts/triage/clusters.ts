import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WordClustersJson } from '../../shared/src/domain/triage/clusters';
import { loadWordVectors, VECTORS_DIR } from './corpus';
import { kmeans, normaliseRows } from './kmeans';

/**
 * `npm run triage:clusters`: clusters the word vectors that `npm run triage:vectors` derived into .local/
 * (VOCAB most frequent words, K fine clusters, COARSE groups of the fine clusters' centres; seeded spherical
 * k-means, scripts/triage/kmeans.ts) and writes the word → cluster table (shared/src/domain/triage/clusters.ts)
 * to OUT. The same package, settings and seed give the same bytes.
 */
const VOCAB = Number(process.env.VOCAB ?? 20000);
const K = Number(process.env.K ?? 512);
const COARSE = Number(process.env.COARSE ?? 64);
const SEED = Number(process.env.SEED ?? 17);
const OUT = resolve(process.env.OUT ?? `.local/triage-vectors/clusters-${VOCAB}-${K}-${COARSE}.json`);

const started = Date.now();
const vectors = loadWordVectors();
const { source } = JSON.parse(readFileSync(join(VECTORS_DIR, 'meta.json'), 'utf8')) as { source: string };
const tarball = resolve('.local/triage-vectors', `${source.replace('@', '-')}.tgz`);
const sha256 = createHash('sha256').update(readFileSync(tarball)).digest('hex');
const n = Math.min(VOCAB, vectors.words.length);
const data = Float64Array.from(vectors.data.subarray(0, n * vectors.dim));
normaliseRows(data, vectors.dim);
const fine = kmeans({ n, dim: vectors.dim, data }, K, { seed: SEED });
const sizes = new Float64Array(K);
for (const j of fine.of) sizes[j] = (sizes[j] as number) + 1;
const coarse = kmeans({ n: K, dim: vectors.dim, data: fine.centres, weight: sizes }, COARSE, { seed: SEED });
const members: string[][] = Array.from({ length: K }, () => []);
fine.of.forEach((j, i) => {
  members[j]?.push(vectors.words[i] as string);
});
const table: WordClustersJson = {
  source,
  sha256,
  seed: SEED,
  words: members.map((ws) => ws.join(' ')).join('\n'),
  coarse: Array.from(coarse.of),
};
writeFileSync(OUT, `${JSON.stringify(table)}\n`);
console.log(
  `${n} words → ${K} clusters in ${COARSE} groups (${source}, seed ${SEED}), ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s → ${OUT}`,
);
