import { createHash } from 'node:crypto';
import { parseConfig } from '../../shared/src/config';
import { createTriageClassifier, EMERGENCY_THRESHOLD } from '../../shared/src/domain/triage/classifier';
import { evaluate, formatConfusion } from '../../shared/src/domain/triage/evaluate';
import { TRIAGE_TRAIN_OPTIONS, trainTriageModel } from '../../shared/src/domain/triage/train';
import { type Example, loadCorpus, loadWordVectors, splitCorpus } from './corpus';

/**
 * `npm run triage:cv [options-json] [--misses]`: 5-fold cross-validation on the TRAINING split only. This is
 * where features, settings and the emergency threshold are chosen, so the held-apart split stays unseen
 * until the bench measures it. Folds are fixed by a hash of each text (salted apart from the split's).
 * `--misses` lists the training examples the folds got wrong, to see what the corpus lacks.
 */
const FOLDS = Number(process.env.FOLDS ?? 5);
const keywords = parseConfig({ TABLE_NAME: 'cv', EVENTS_QUEUE_URL: 'http://127.0.0.1/cv' }).URGENT_KEYWORDS;
const args = process.argv.slice(2);
const options = { ...TRIAGE_TRAIN_OPTIONS, ...JSON.parse(args.find((a) => a.startsWith('{')) ?? '{}') };
const threshold = Number(process.env.THRESHOLD ?? EMERGENCY_THRESHOLD);
const foldOf = (e: Example) => createHash('sha256').update(`cv:${e.text}`).digest().readUInt8(0) % FOLDS;

const { training } = splitCorpus(loadCorpus());
const vectors = options.vectorScale > 0 ? loadWordVectors() : undefined;
const predicted = new Map<
  string,
  Awaited<ReturnType<ReturnType<typeof createTriageClassifier>['classify']>>
>();
for (let fold = 0; fold < FOLDS; fold += 1) {
  const classifier = createTriageClassifier(
    trainTriageModel(
      training.filter((e) => foldOf(e) !== fold),
      options,
      vectors,
    ),
    { emergencyThreshold: threshold },
  );
  for (const e of training.filter((x) => foldOf(x) === fold)) {
    predicted.set(e.text, await classifier.classify(e.text, keywords));
  }
}
const r = await evaluate(training, (t) => predicted.get(t)?.triageClass ?? 'other');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`settings ${JSON.stringify(options)}, emergency threshold ${threshold}`);
console.log(
  `${FOLDS}-fold cross-validation on ${r.n} training examples: accuracy ${pct(r.accuracy)}, emergency recall ${pct(r.emergencyRecall)}, precision ${pct(r.emergencyPrecision)}`,
);
console.log(formatConfusion(r.confusion));
if (args.includes('--misses'))
  for (const m of r.misses) console.log(`${m.expected} → ${m.predicted}: ${m.text}`);
