import { judgeUrgency } from '../urgency';
import { backstopOf } from './backstop';
import { loadBayes } from './bayes';
import { kindByCues, withoutCallForHelp } from './kind-cues';
import { EMERGENCY_KINDS, type EmergencyKind, TRIAGE_CLASSES, type TriageClass } from './labels';
import { type LinearPrediction, loadLinear } from './linear';
import { loadNeighbours } from './neighbours';
import type { TriageModelJson } from './train';

/** What triage decided about one message, and why (the card shows `cues`). */
export interface Triage {
  triageClass: TriageClass;
  kind?: EmergencyKind;
  /** The model's own class before the keyword floor; differs from `triageClass` when the floor overrode it. */
  modelClass: TriageClass;
  confidence: number;
  /** Words that weighed most for the class, or the keywords that set the floor. */
  cues: string[];
  /** True when the emergency keywords made this an emergency the model did not see. */
  byKeywordFloor: boolean;
}

export interface TriageClassifier {
  classify(text: string, urgentKeywords: readonly string[]): Promise<Triage>;
}

/**
 * The second stage: a message is an emergency when the model gives "emergency" (the sum of its kinds) at
 * least this probability, even if another class scores higher. A missed emergency costs far more than a
 * page too many, so the bar sits below an even split; 0.3 is where grouped 5-fold cross-validation of the
 * training split (`npm run triage:cv`, three fold salts) kept precision above 90% with the most recall.
 */
export const EMERGENCY_THRESHOLD = 0.3;

/**
 * The nearest training examples' opinion (neighbours.ts) is blended into the class model's probabilities
 * with this weight, over this many neighbours. Chosen on grouped 5-fold cross-validation of the training
 * split, three fold salts (k 3–15, weight 0.1–0.5): k 4 and 0.3 gave the most accuracy with recall kept.
 */
export const NEIGHBOURS_K = 4;
export const NEIGHBOURS_WEIGHT = 0.3;

/**
 * Naive Bayes over the same shipped examples (bayes.ts) is blended in beside them, among the routine classes
 * only, with this weight (the class model keeps the rest). Chosen on grouped 5-fold cross-validation of the
 * training split, three fold salts, against the same run's model without it: see docs/ARCHITECTURE.md.
 */
export const BAYES = { weight: 0.3, alpha: 0.1, temperature: 1 } as const;

/** Keyword → kind, for emergencies the floor raises and the kind model has no strong view on. */
const FLOOR_KINDS: Array<[RegExp, EmergencyKind]> = [
  [/gas|carbon monoxide/, 'gas'],
  [/flood|pipe|water|leak/, 'water'],
  [/fire|smoke|burn/, 'fire'],
  [/break-?in|broken into|intruder|robb|burglar/, 'security'],
  [/heat|furnace|boiler/, 'heat'],
  [/spark|electric|power|wire/, 'electrical'],
];

const MAX_CHARS = 1200;

const isClass = (s: string): s is TriageClass => (TRIAGE_CLASSES as readonly string[]).includes(s);
const isKind = (s: string): s is EmergencyKind => (EMERGENCY_KINDS as readonly string[]).includes(s);

function best(p: LinearPrediction): [string, number] {
  return Object.entries(p.probabilities).reduce((a, b) => (b[1] > a[1] ? b : a), ['other', 0]);
}

/**
 * Per-class probabilities: a model trained on emergency kinds as labels (`emergency.water`, …) gives
 * "emergency" the sum of its kinds.
 */
function byClass(p: LinearPrediction): LinearPrediction {
  if (!Object.keys(p.probabilities).some((l) => l.startsWith('emergency.'))) return p;
  const probabilities: Record<string, number> = {};
  for (const [label, x] of Object.entries(p.probabilities)) {
    const c = label.startsWith('emergency.') ? 'emergency' : label;
    probabilities[c] = (probabilities[c] ?? 0) + x;
  }
  return { probabilities, cues: p.cues };
}

/**
 * The best class other than emergency, by the class model's probabilities with the shipped examples' opinions
 * (the nearest examples' shares, naive Bayes) blended in, each at its weight. Whether a message is an emergency stays the class model's call with its
 * own threshold: on cross-validation, blending that too moved pages both ways for no gain in recall. (So a message
 * whose top class is emergency, below the threshold, is no longer paged: on cross-validation of 2,180
 * examples, three salts, that found the same emergencies and paged a few fewer others.)
 */
function bestRoutine(p: LinearPrediction, others: readonly Opinion[]): [string, number] {
  let top: [string, number] = ['other', 0];
  const own = 1 - others.reduce((sum, o) => sum + o.weight, 0);
  for (const c of Object.keys(p.probabilities)) {
    if (c === 'emergency') continue;
    const x = others.reduce((sum, o) => sum + o.weight * (o.shares[c] ?? 0), own * (p.probabilities[c] ?? 0));
    if (x > top[1]) top = [c, x];
  }
  return top;
}

/** One of the shipped examples' opinions of a text (the nearest examples, naive Bayes): a share per class. */
interface Opinion {
  weight: number;
  shares: Record<string, number>;
}

/** Knobs for cross-validation and the bench's comparison rows; production uses the defaults. */
export interface ClassifierOptions {
  emergencyThreshold?: number;
  /** How much the nearest examples weigh (0: the class model alone). */
  neighboursWeight?: number;
  neighboursK?: number;
  /** Naive Bayes over the shipped examples (bayes.ts): its weight (0: off), smoothing and temperature. */
  bayes?: { weight: number; alpha: number; temperature: number };
  /** The safety-phrase backstop (backstop.ts); off only to measure what it adds. */
  backstop?: boolean;
}

/**
 * The generated model, imported on first classify (issue 16): a dynamic import is its own chunk in the
 * worker's bundle, so a cold start that never triages neither loads nor parses it.
 */
async function shippedModel(): Promise<TriageModelJson> {
  const m = await import('./triage-model.generated.json');
  return (m.default ?? m) as TriageModelJson;
}

/**
 * The shipped classifier: the generated models (trained at build time, `npm run train:triage`) plus the
 * keyword floor and the safety-phrase backstop. Where they disagree on an emergency, the floor wins (issue
 * 17): never fewer pages than the keyword rules gave. The models are loaded and indexed on first use.
 */
export function createTriageClassifier(
  model?: TriageModelJson,
  {
    emergencyThreshold = EMERGENCY_THRESHOLD,
    backstop: withBackstop = true,
    neighboursWeight = NEIGHBOURS_WEIGHT,
    neighboursK = NEIGHBOURS_K,
    bayes: bayesOptions = BAYES,
  }: ClassifierOptions = {},
): TriageClassifier {
  let loaded: Promise<TriageModelJson> | undefined;
  const load = () => (loaded ??= model ? Promise.resolve(model) : shippedModel());
  let classes: ReturnType<typeof loadLinear> | undefined;
  let kinds: ReturnType<typeof loadLinear> | undefined;
  let near: ((text: string) => Record<string, number>) | undefined;
  let bayes: ((text: string) => Record<string, number>) | undefined;
  /**
   * The class model's probabilities, and the shipped examples' opinions that weigh (none for a model
   * trained without its examples: the class model then weighs alone).
   */
  const opinions = async (text: string): Promise<{ p: LinearPrediction; others: Opinion[] }> => {
    const m = await load();
    classes ??= loadLinear(m.classes);
    const p = byClass(classes(text));
    const others: Opinion[] = [];
    if (m.neighbours && neighboursWeight > 0) {
      near ??= loadNeighbours(m.neighbours, neighboursK);
      others.push({ weight: neighboursWeight, shares: near(text) });
    }
    if (m.neighbours && bayesOptions.weight > 0) {
      bayes ??= loadBayes(m.neighbours, bayesOptions);
      others.push({ weight: bayesOptions.weight, shares: bayes(text) });
    }
    return { p, others };
  };
  const kindOf = async (text: string): Promise<EmergencyKind | undefined> => {
    kinds ??= loadLinear((await load()).kinds);
    const [top] = best(kinds(withoutCallForHelp(text)));
    return isKind(top) ? top : undefined;
  };
  return {
    async classify(text, urgentKeywords) {
      const input = text.slice(0, MAX_CHARS);
      const { p, others } = await opinions(input);
      const [top, score] = bestRoutine(p, others);
      const pEmergency = p.probabilities.emergency ?? 0;
      const modelClass: TriageClass =
        pEmergency >= emergencyThreshold ? 'emergency' : isClass(top) ? top : 'other';
      const floor = judgeUrgency(input, [...urgentKeywords]);
      const backstop = withBackstop ? backstopOf(input) : undefined;
      if (modelClass === 'emergency' || floor.urgent || backstop) {
        const byKeywordFloor = modelClass !== 'emergency';
        const kind = await kindInOrder(input, byKeywordFloor ? floor.matched : [], backstop?.kind, kindOf);
        const floorCues = floor.urgent ? floor.matched : backstop ? [backstop.phrase] : [];
        return {
          triageClass: 'emergency',
          ...(kind ? { kind } : {}),
          modelClass,
          confidence: pEmergency,
          cues: byKeywordFloor ? floorCues : cuesOf(p, 'emergency'),
          byKeywordFloor,
        };
      }
      return {
        triageClass: modelClass,
        modelClass,
        confidence: score,
        cues: cuesOf(p, modelClass),
        byKeywordFloor: false,
      };
    },
  };
}

/**
 * The emergency's kind, most specific evidence first: a floor keyword that names the hazard ("gas leak"),
 * then a safety phrase (backstop.ts), then an intrusion told with no one hurt and no other hazard
 * (kind-cues.ts: "trying door handles… I called 911" is a security page, not a medical one), and only then
 * the kind model, which reads the text without the call for help.
 */
async function kindInOrder(
  text: string,
  floorMatched: readonly string[],
  backstopKind: EmergencyKind | undefined,
  kindModel: (text: string) => Promise<EmergencyKind | undefined>,
): Promise<EmergencyKind | undefined> {
  const hint = floorMatched.join(' ');
  const named = hint ? FLOOR_KINDS.find(([re]) => re.test(hint))?.[1] : undefined;
  return named ?? backstopKind ?? kindByCues(text) ?? (await kindModel(text));
}

/**
 * Words that weigh in the model but explain nothing on a card ("still", "got", "did": "lead · still, bed,
 * elm" reads as noise). Function words, pronouns and fillers; the model keeps them as features.
 */
const PLAIN = new Set(
  `a about above after again all also am an and any anyone are as at be been before being below but by can
  could did do does done even ever every for from get gets got had has have he her here hers hi him his hello
  hey how i if im in into is it its ive just last let lot me more most much my next no not now of off on one
  only or our out over please really said say she so some someone something than that thats the their them
  then still there these they thing this those to too under up us very was way we well were what when where
  which who why will with would yet you your youre qmark exclaim num`.split(/\s+/),
);

/** Words features.ts makes from symbols and phrases, as a card should say them. */
const SAID: Record<string, string> = {
  foottraffic: 'coming and going',
  clocktime: 'a time',
  weblink: 'a link',
  emailaddr: 'an email address',
};

/**
 * A card's "why" in a few words. A bare number or a one- or two-letter token ("2" of "2 bed", "b" of "4 b")
 * weighs in the model but says nothing to the person reading the card.
 */
function cuesOf(p: LinearPrediction, label: string): string[] {
  return p
    .cues(label, 12)
    .filter((w) => !PLAIN.has(w) && w.length > 2 && !/^\d+$/.test(w))
    .slice(0, 3)
    .map((w) => SAID[w] ?? w);
}
