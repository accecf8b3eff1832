import { withConcepts } from './concepts';
import type { Example } from './corpus';
import { classOf, kindOf } from './labels';
import { newNlu } from './nlu';

/** Fixed so two trainings of the same corpus give the same model, byte for byte. */
export const TRAINING_SEED = 17;

/** mulberry32: a tiny seeded PRNG, enough to fix the order examples are presented in. */
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

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const rnd = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Weights rounded to 4 decimals: a smaller file, and no float noise between machines in the bytes. */
function roundWeights(json: Record<string, unknown>): Record<string, unknown> {
  const net = json.neuralNetwork as { perceptrons?: number[][] } | undefined;
  if (net?.perceptrons) {
    net.perceptrons = net.perceptrons.map((p) => p.map((w) => Math.round(w * 1e4) / 1e4));
  }
  return json;
}

/**
 * Every intent presented about equally often (smaller ones repeated in turn): the perceptrons otherwise
 * lean toward the largest class, and pooled emergencies outnumber every other class several times over.
 */
function balanced<T extends { intent: string }>(examples: readonly T[]): T[] {
  const by = new Map<string, T[]>();
  for (const e of examples) by.set(e.intent, [...(by.get(e.intent) ?? []), e]);
  const target = Math.max(...[...by.values()].map((v) => v.length));
  return [...by.values()].flatMap((v) => Array.from({ length: target }, (_, i) => v[i % v.length] as T));
}

async function trainOne(examples: Array<{ text: string; intent: string }>): Promise<Record<string, unknown>> {
  const nlu = newNlu();
  const corpus = shuffled(balanced(examples), TRAINING_SEED).map((e) => ({
    utterance: withConcepts(e.text),
    intent: e.intent,
  }));
  await nlu.train(corpus);
  return roundWeights(JSON.parse(JSON.stringify(nlu.toJSON())) as Record<string, unknown>);
}

/**
 * Trains the two models that ship, on the training split only: one over the twelve classes (every kind of
 * emergency pooled, so "emergency" is the largest and most coherent class, not seven small ones each
 * easy to confuse with maintenance), and one over the emergency kinds, trained on emergencies alone.
 */
export async function trainTriageModel(training: readonly Example[]): Promise<TriageModelJson> {
  const classes = await trainOne(training.map((e) => ({ text: e.text, intent: classOf(e.label) })));
  const kinds = await trainOne(
    training.flatMap((e) => {
      const kind = kindOf(e.label);
      return kind ? [{ text: e.text, intent: kind }] : [];
    }),
  );
  return { classes, kinds };
}

export interface TriageModelJson {
  classes: Record<string, unknown>;
  kinds: Record<string, unknown>;
}
