import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { parseConfig } from '../../shared/src/config';
import { BAYES, createTriageClassifier } from '../../shared/src/domain/triage/classifier';
import {
  type Evaluation,
  evaluate,
  formatConfusion,
  keywordBaseline,
} from '../../shared/src/domain/triage/evaluate';
import { trainTriageModel } from '../../shared/src/domain/triage/train';
import { type Example, loadCorpus, splitCorpus } from '../triage/corpus';
import { type BenchRow, percentile } from './types';

/**
 * Triage on the held-apart split (issue 17): the shipped classifier (model + keyword floor), the model
 * alone, and the baseline — today's keyword rules — on the same examples in the same run. Then what the
 * classifier costs the worker: bundled bytes and a cold process's time to first answer, each beside an
 * empty entry built and run the same way.
 */
const pct = (x: number) => x * 100;
const CLASSIFIER_ENTRY = `import { createTriageClassifier } from ${JSON.stringify(join(import.meta.dirname, '../../shared/src/domain/triage/classifier'))};
const t0 = performance.now();
await createTriageClassifier().classify('water is coming through the ceiling', []);
console.log(performance.now() - t0);`;
const EMPTY_ENTRY = `const t0 = performance.now();\nconsole.log(performance.now() - t0);`;

async function bundle(dir: string, name: string, source: string): Promise<{ file: string; bytes: number }> {
  const entry = join(dir, `${name}.ts`);
  writeFileSync(entry, source);
  const file = join(dir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    minify: true,
    outfile: file,
    logLevel: 'error',
  });
  return { file, bytes: statSync(file).size };
}

/** Wall time of a fresh node process that loads the bundle and answers once (median of 5). */
function coldMs(file: string): number {
  const runs = Array.from({ length: 5 }, () => {
    const t0 = performance.now();
    execFileSync(process.execPath, [file]);
    return performance.now() - t0;
  });
  return percentile(runs, 50);
}

/** A percentage, or "n/a" for a set with nothing to count (no emergencies among a source's few lines). */
const shown = (x: number) => (Number.isFinite(x) ? `${pct(x).toFixed(1)}%` : 'n/a');

function printFigures(name: string, e: Evaluation) {
  console.log(
    `  ${name.padEnd(30)} accuracy ${shown(e.accuracy)}  emergency recall ${shown(e.emergencyRecall)}  precision ${shown(e.emergencyPrecision)}`,
  );
}

/**
 * The shipped figures on each source's part of the held-apart split: lines written later to grow the
 * corpus (`# @source` in triage-corpus/) come from one writer, who also wrote training lines, so they may
 * be easier than the first ones; the original part is the comparable figure across sessions.
 */
async function bySource(
  heldApart: readonly Example[],
  classifier: ReturnType<typeof createTriageClassifier>,
  keywords: readonly string[],
) {
  const sources = [...new Set(heldApart.map((e) => e.source))];
  if (sources.length < 2) return;
  for (const source of sources) {
    const part = heldApart.filter((e) => e.source === source);
    const e = await evaluate(part, async (t) => (await classifier.classify(t, keywords)).triageClass);
    printFigures(`  of which ${source} (${part.length})`, e);
  }
}

/**
 * Writers the model has not read. Held-apart lines share their writer with training lines (each `# @source`
 * was written in one sitting, its lines split by hash), so the split flatters a writer the model has read;
 * the unseen set's writer is new. For each later source: a model trained on the training split WITHOUT that
 * source's lines, tested on all of them (training and held apart alike), as the shipped classifier
 * otherwise is. "model + floor" leaves out the backstop, whose later phrases were written from sources' own
 * training misses and would flatter them. Each row retrains (about 24 s at 11,000 lines), so with every
 * writer this part takes about 25 minutes: `TRIAGE_WRITERS=eleventh-session` keeps only the sources whose
 * name starts so (`TRIAGE_WRITERS=none` skips it).
 */
async function newWriters(
  corpus: readonly Example[],
  training: readonly Example[],
  keywords: readonly string[],
) {
  const only = process.env.TRIAGE_WRITERS;
  const sources = [...new Set(corpus.map((e) => e.source))].filter(
    (s) => s !== 'original' && (!only || s.startsWith(only)),
  );
  if (!sources.length) return;
  console.log('  a writer the model has not read (trained without its lines, tested on all of them):');
  for (const source of sources) {
    const model = trainTriageModel(training.filter((e) => e.source !== source));
    const lines = corpus.filter((e) => e.source === source);
    for (const [name, options] of [
      ['shipped', {}],
      ['model + floor', { backstop: false }],
    ] as const) {
      const c = createTriageClassifier(model, options);
      const e = await evaluate(lines, async (t) => (await c.classify(t, keywords)).triageClass);
      printFigures(`  ${source} (${lines.length}), ${name}`, e);
    }
  }
}

/**
 * The "messages nobody here has seen": `TRIAGE_UNSEEN=<dir> npm run bench triage` runs a set kept
 * outside the repo (same layout as triage-corpus/: one file per label, one message a line) against what
 * landed, beside the keyword baseline on the same messages. Nothing in it is ever trained on or printed.
 */
async function unseenSet(classifier: ReturnType<typeof createTriageClassifier>, keywords: readonly string[]) {
  const dir = process.env.TRIAGE_UNSEEN;
  if (!dir) return;
  const unseen = loadCorpus(dir);
  const shipped = await evaluate(unseen, async (t) => (await classifier.classify(t, keywords)).triageClass);
  const base = await evaluate(unseen, keywordBaseline(keywords));
  console.log(`  unseen set (${dir}): ${unseen.length} messages`);
  printFigures('classifier + keyword floor', shipped);
  printFigures('baseline (keyword rules)', base);
  console.log(`\n  confusion, unseen set\n${formatConfusion(shipped.confusion).replace(/^/gm, '  ')}\n`);
}

export async function run(): Promise<BenchRow[]> {
  const keywords = parseConfig({
    TABLE_NAME: 'bench',
    EVENTS_QUEUE_URL: 'http://127.0.0.1/bench',
  }).URGENT_KEYWORDS;
  const corpus = loadCorpus();
  const { training, heldApart } = splitCorpus(corpus);
  const classifier = createTriageClassifier();
  const latencies: number[] = [];
  // Messages the keyword floor or the backstop made emergencies although the model said otherwise: the
  // issue's rule ("the floor wins, even at the cost of precision"), counted so its cost is visible.
  const floored = new Set<string>();
  const shipped = await evaluate(heldApart, async (t) => {
    const t0 = performance.now();
    const r = await classifier.classify(t, keywords);
    latencies.push(performance.now() - t0);
    if (r.byKeywordFloor) floored.add(t);
    return r.triageClass;
  });
  const floorOnlyFalse = shipped.misses.filter((m) => m.predicted === 'emergency' && floored.has(m.text));
  const modelOnly = await evaluate(heldApart, async (t) => (await classifier.classify(t, [])).modelClass);
  const noBackstop = createTriageClassifier(undefined, { backstop: false });
  const floorOnly = await evaluate(
    heldApart,
    async (t) => (await noBackstop.classify(t, keywords)).triageClass,
  );
  const baseline = await evaluate(heldApart, keywordBaseline(keywords));
  // The classifier as it was before naive Bayes joined the routine choice (ninth session), on the same lines.
  const noBayes = createTriageClassifier(undefined, { bayes: { ...BAYES, weight: 0 } });
  const withoutBayes = await evaluate(
    heldApart,
    async (t) => (await noBayes.classify(t, keywords)).triageClass,
  );

  console.log(`  held-apart split: ${heldApart.length} examples (trained on ${training.length})`);
  printFigures('shipped (model+floor+backstop)', shipped);
  console.log(
    `  of the ${shipped.misses.length} misses, ${floorOnlyFalse.length} are non-emergencies paged only by the keyword floor or the backstop (the floor wins by the issue's rule)`,
  );
  await bySource(heldApart, classifier, keywords);
  printFigures('model + keyword floor', floorOnly);
  printFigures('model alone', modelOnly);
  printFigures('shipped without naive Bayes', withoutBayes);
  printFigures('baseline (keyword rules)', baseline);
  console.log(
    `\n  confusion, classifier + floor (rows: true class)\n${formatConfusion(shipped.confusion).replace(/^/gm, '  ')}`,
  );
  console.log(`\n  confusion, baseline\n${formatConfusion(baseline.confusion).replace(/^/gm, '  ')}\n`);
  await newWriters(corpus, training, keywords);
  await unseenSet(classifier, keywords);

  const dir = mkdtempSync(join(tmpdir(), 'triage-bench-'));
  try {
    const withClassifier = await bundle(dir, 'classifier', CLASSIFIER_ENTRY);
    const empty = await bundle(dir, 'empty', EMPTY_ENTRY);
    const coldWith = coldMs(withClassifier.file);
    const coldEmpty = coldMs(empty.file);
    const row = (name: string, value: number, base: number, unit: string, target: string): BenchRow => ({
      name,
      value,
      baseline: base,
      ratio: base ? value / base : undefined,
      unit,
      target,
    });
    return [
      row('accuracy (held apart)', pct(shipped.accuracy), pct(baseline.accuracy), '%', '≥ 95%'),
      row('emergency recall', pct(shipped.emergencyRecall), pct(baseline.emergencyRecall), '%', '100%'),
      row(
        'emergency precision',
        pct(shipped.emergencyPrecision),
        pct(baseline.emergencyPrecision),
        '%',
        '≥ 90%',
      ),
      { name: 'classify p50', value: percentile(latencies, 50), unit: 'ms' },
      { name: 'classify p99', value: percentile(latencies, 99), unit: 'ms' },
      row('bundled bytes', withClassifier.bytes / 1024, empty.bytes / 1024, 'KiB', 'worker ≤ 3 MB'),
      row('cold process to first answer', coldWith, coldEmpty, 'ms', 'init ≤ 1.5× empty handler'),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
