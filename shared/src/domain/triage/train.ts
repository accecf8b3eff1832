import type { Example } from './corpus';
import { classOf, kindOf } from './labels';
import { DEFAULT_TRAIN_OPTIONS, type LinearModelJson, type TrainOptions, trainLinear } from './linear';

/**
 * Settings chosen by 5-fold cross-validation of the TRAINING split only (`npm run triage:cv`), never by
 * looking at the held-apart split: more epochs at a higher rate than the defaults, which converge better
 * on this many sparse features.
 */
export const TRIAGE_TRAIN_OPTIONS: TrainOptions = { ...DEFAULT_TRAIN_OPTIONS, epochs: 100, learningRate: 1 };

/**
 * Trains the two models that ship, on the training split only: one over the twelve classes (every kind of
 * emergency pooled, so "emergency" is one coherent class, not seven small ones each easy to confuse with
 * maintenance), and one over the emergency kinds, trained on emergencies alone.
 */
export function trainTriageModel(
  training: readonly Example[],
  options: TrainOptions = TRIAGE_TRAIN_OPTIONS,
): TriageModelJson {
  const classes = trainLinear(
    training.map((e) => ({ text: e.text, label: classOf(e.label) })),
    options,
  );
  const kinds = trainLinear(
    training.flatMap((e) => {
      const kind = kindOf(e.label);
      return kind ? [{ text: e.text, label: kind }] : [];
    }),
    options,
  );
  return { classes, kinds };
}

export interface TriageModelJson {
  classes: LinearModelJson;
  kinds: LinearModelJson;
}
