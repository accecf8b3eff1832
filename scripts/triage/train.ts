import { writeFileSync } from 'node:fs';
import { MODEL_PATH, serializeModel } from '../../shared/src/domain/triage/model-file';
import { trainTriageModel } from '../../shared/src/domain/triage/train';
import { loadCorpus, splitCorpus } from './corpus';

/**
 * `npm run train:triage`: trains the triage model on the corpus's training split and writes the generated
 * model file that the worker bundles. Deterministic: the same corpus gives the same bytes, which the tests
 * check, so a corpus change without a retrain fails CI.
 */
const started = Date.now();
const { training, heldApart } = splitCorpus(loadCorpus());
const model = trainTriageModel(training);
writeFileSync(MODEL_PATH, serializeModel(model));
console.log(
  `triage model: ${training.length} training examples (${heldApart.length} held apart), ` +
    `${((Date.now() - started) / 1000).toFixed(1)} s → ${MODEL_PATH}`,
);
