import { createHash } from 'node:crypto';
import { featuresOf } from '../../shared/src/domain/triage/features';
import { classOf } from '../../shared/src/domain/triage/labels';
import { nearDuplicateGroups } from '../../shared/src/domain/triage/split';
import { TRIAGE_TRAIN_OPTIONS, trainTriageModel } from '../../shared/src/domain/triage/train';
import { type Example, loadCorpus, splitCorpus } from './corpus';
const FOLDS = 5;
const { training } = splitCorpus(loadCorpus());
const groupOf = nearDuplicateGroups(training.map((e) => e.text));
const foldOf = (e: Example) => createHash('sha256').update(`cv:${groupOf.get(e.text) ?? e.text}`).digest().readUInt8(0) % FOLDS;
const want = process.argv[2] ?? 'maintenance';
for (let fold = 0; fold < FOLDS; fold++) {
  const m = trainTriageModel(training.filter((e) => foldOf(e) !== fold), TRIAGE_TRAIN_OPTIONS).classes;
  const feats = m.features.split('\n');
  const idx = new Map(feats.map((f, i) => [f, i]));
  const raw = Buffer.from(m.weights, 'base64');
  const w = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const K = m.labels.length;
  const ke = m.labels.indexOf('emergency');
  for (const e of training.filter((x) => foldOf(x) === fold && classOf(x.label) === want)) {
    const fs = featuresOf(e.text).filter((f) => idx.has(f));
    const v = 1 / Math.sqrt(fs.length);
    const sc = m.bias.slice();
    for (const f of fs) for (let k = 0; k < K; k++) sc[k] += w[idx.get(f)! * K + k] * m.scale * v;
    const mx = Math.max(...sc); const ex = sc.map((s) => Math.exp(s - mx)); const Z = ex.reduce((a, b) => a + b);
    const pe = ex[ke] / Z;
    if (pe < 0.35) continue;
    const contrib = fs.map((f) => [f, (w[idx.get(f)! * K + ke] - w[idx.get(f)! * K + m.labels.indexOf(want)]) * m.scale * v] as const).sort((a, b) => b[1] - a[1]).slice(0, 5);
    console.log(`${pe.toFixed(2)} ${e.text}\n     ${contrib.map(([f, c]) => `${f}:${c.toFixed(2)}`).join('  ')}`);
  }
}
