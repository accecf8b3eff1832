import { createHash } from 'node:crypto';
import { parseConfig } from '../../shared/src/config';
import {
  BAYES,
  createTriageClassifier,
  EMERGENCY_THRESHOLD,
} from '../../shared/src/domain/triage/classifier';
import { evaluate, formatConfusion } from '../../shared/src/domain/triage/evaluate';
import { kindOf, type TriageClass } from '../../shared/src/domain/triage/labels';
import { nearDuplicateGroups } from '../../shared/src/domain/triage/split';
import { TRIAGE_TRAIN_OPTIONS, trainTriageModel } from '../../shared/src/domain/triage/train';
import { type Example, loadCorpus, loadWordVectors, splitCorpus } from './corpus';

/**
 * `npm run triage:cv [options-json] [--misses]`: 5-fold cross-validation on the TRAINING split only. This is
 * where features, settings and the emergency threshold are chosen, so the held-apart split stays unseen
 * until the bench measures it. Folds are fixed by a hash of each text (salted apart from the split's), and texts that are near-duplicates of
 * each other (`nearDuplicateGroups`) share a fold, as the held-apart split shares none with training.
 * `--misses` lists the training examples the folds got wrong, to see what the corpus lacks.
 */
const FOLDS = Number(process.env.FOLDS ?? 5);
const keywords = parseConfig({ TABLE_NAME: 'cv', EVENTS_QUEUE_URL: 'http://127.0.0.1/cv' }).URGENT_KEYWORDS;
const args = process.argv.slice(2);
const options = { ...TRIAGE_TRAIN_OPTIONS, ...JSON.parse(args.find((a) => a.startsWith('{')) ?? '{}') };
/** `NEIGHBOURS=k,weight` tries other settings of the nearest-examples blend (`NEIGHBOURS=4,0` turns it off). */
const [neighboursK, neighboursWeight] = (process.env.NEIGHBOURS ?? '').split(',').map(Number);
/** `BAYES=weight,alpha,temperature` tries other settings of the naive Bayes blend (`BAYES=0` turns it off). */
const [bayesWeight, bayesAlpha, bayesTemperature] = (process.env.BAYES ?? '').split(',').map(Number);
/** `BACKSTOP=0` leaves the safety phrases out (some were written from these very training lines' misses). */
const neighbours = {
  ...(process.env.BACKSTOP === '0' ? { backstop: false } : {}),
  ...(process.env.NEIGHBOURS ? { neighboursK, neighboursWeight } : {}),
  ...(process.env.BAYES
    ? {
        bayes: {
          weight: bayesWeight ?? 0,
          alpha: bayesAlpha || BAYES.alpha,
          temperature: bayesTemperature || BAYES.temperature,
        },
      }
    : {}),
};
/** `THRESHOLD=0.3,0.4,0.5` prints each threshold's figures from the same folds' models (the last in full). */
const thresholds = (process.env.THRESHOLD ?? String(EMERGENCY_THRESHOLD)).split(',').map(Number);
/** `SCORE_SOURCES=original,session5,…` also prints the figures on those sources' lines alone. */
const scoreSources = process.env.SCORE_SOURCES?.split(',');
const { training } = splitCorpus(loadCorpus());
const groupOf = nearDuplicateGroups(training.map((e) => e.text));
const foldOf = (e: Example) =>
  createHash('sha256')
    .update(`cv${process.env.FOLD_SALT ?? ''}:${groupOf.get(e.text) ?? e.text}`)
    .digest()
    .readUInt8(0) % FOLDS;
const vectors = options.vectorScale > 0 ? loadWordVectors() : undefined;
/**
 * `WRITERS_OUT=seventh-session,tenth-session`: instead of folds, each named source in turn is left out of
 * training and its TRAINING-split lines are the test — a writer the model has not read, as the unseen set's
 * is (the bench prints the same on all of a source's lines; choosing here never touches the held-apart split).
 */
const writersOut = process.env.WRITERS_OUT?.split(',');
const folds = writersOut
  ? writersOut.map((source) => ({
      train: training.filter((e) => e.source !== source),
      test: training.filter((e) => e.source === source),
    }))
  : Array.from({ length: FOLDS }, (_, fold) => ({
      train: training.filter((e) => foldOf(e) !== fold),
      test: training.filter((e) => foldOf(e) === fold),
    }));
const models = folds.map((f) => trainTriageModel(f.train, options, vectors));
const tested = folds.flatMap((f) => f.test);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(`settings ${JSON.stringify(options)}`);
for (const threshold of thresholds) {
  const predicted = new Map<string, TriageClass>();
  const floored = new Set<string>();
  let kindsRight = 0;
  let kindsAsked = 0;
  for (const [fold, { test }] of folds.entries()) {
    const classifier = createTriageClassifier(models[fold], { emergencyThreshold: threshold, ...neighbours });
    for (const e of test) {
      const r = await classifier.classify(e.text, keywords);
      predicted.set(e.text, r.triageClass);
      if (r.byKeywordFloor) floored.add(e.text);
      const kind = kindOf(e.label);
      if (kind && r.triageClass === 'emergency') {
        kindsAsked += 1;
        if (r.kind === kind) kindsRight += 1;
      }
    }
  }
  const r = await evaluate(tested, (t) => predicted.get(t) ?? 'other');
  console.log(
    `${writersOut ? `writers left out (${writersOut.join(', ')})` : `${FOLDS}-fold cross-validation`} on ${r.n} training examples, emergency threshold ${threshold}: accuracy ${pct(r.accuracy)}, emergency recall ${pct(r.emergencyRecall)}, precision ${pct(r.emergencyPrecision)}`,
  );
  console.log(
    `  emergency kind right on ${kindsRight} of ${kindsAsked} emergencies found (${pct(kindsRight / kindsAsked)})`,
  );
  // The same folds' answers on the lines of some `# @source`s only: lines added since are trained on but not
  // scored, so a batch is judged by what it does to the lines that were there (their folds do not move).
  if (scoreSources) {
    const old = await evaluate(
      tested.filter((e) => scoreSources.includes(e.source)),
      (t) => predicted.get(t) ?? 'other',
    );
    console.log(
      `  on the ${old.n} lines of ${scoreSources.join(', ')}: accuracy ${pct(old.accuracy)}, emergency recall ${pct(old.emergencyRecall)}, precision ${pct(old.emergencyPrecision)}`,
    );
  }
  if (threshold !== thresholds.at(-1)) continue;
  console.log(formatConfusion(r.confusion));
  if (args.includes('--misses'))
    for (const m of r.misses)
      console.log(`${m.expected} → ${m.predicted}${floored.has(m.text) ? ' (floor)' : ''}: ${m.text}`);
}
