import type { NluNeural } from '@nlpjs/nlu';
import { judgeUrgency } from '../urgency';
import { isConceptToken, withConcepts } from './concepts';
import { EMERGENCY_KINDS, type EmergencyKind, TRIAGE_CLASSES, type TriageClass } from './labels';
import { newNlu } from './nlu';
import type { TriageModelJson } from './train';
import TRIAGE_MODEL from './triage-model.generated.json';

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

function lazyNlu(json: Record<string, unknown>): () => NluNeural {
  let nlu: NluNeural | undefined;
  return () => {
    if (!nlu) {
      nlu = newNlu();
      nlu.fromJSON(json);
    }
    return nlu;
  };
}

/**
 * The shipped classifier: the generated models (trained at build time, `npm run train:triage`) plus the
 * keyword floor. Where they disagree on an emergency, the floor wins (issue 17): never fewer pages than the
 * keyword rules gave. The NLUs are built on first use so a cold start that never triages pays nothing.
 */
export function createTriageClassifier(model: TriageModelJson = TRIAGE_MODEL): TriageClassifier {
  const classes = lazyNlu(model.classes);
  const kinds = lazyNlu(model.kinds);
  const kindOf = async (text: string): Promise<EmergencyKind | undefined> => {
    const out = await kinds().process(text);
    const top = out.classifications[0]?.intent ?? '';
    return isKind(top) ? top : undefined;
  };
  return {
    async classify(text, urgentKeywords) {
      const input = text.slice(0, MAX_CHARS);
      const featured = withConcepts(input);
      const out = await classes().process(featured, { returnExplanation: true });
      const top = out.classifications[0] ?? { intent: 'None', score: 0 };
      const ti = top.intent.startsWith('emergency.') ? 'emergency' : top.intent;
      const modelClass: TriageClass = isClass(ti) ? ti : 'other';
      const floor = judgeUrgency(input, [...urgentKeywords]);
      if (modelClass === 'emergency' || floor.urgent) {
        const byKeywordFloor = modelClass !== 'emergency';
        const hint = floor.matched.join(' ');
        const kind = byKeywordFloor
          ? (FLOOR_KINDS.find(([re]) => re.test(hint))?.[1] ?? (await kindOf(featured)))
          : await kindOf(featured);
        return {
          triageClass: 'emergency',
          ...(kind ? { kind } : {}),
          modelClass,
          confidence: top.score,
          cues: byKeywordFloor ? floor.matched : topCues(out.explanation),
          byKeywordFloor,
        };
      }
      return {
        triageClass: modelClass,
        modelClass,
        confidence: top.score,
        cues: topCues(out.explanation),
        byKeywordFloor: false,
      };
    },
  };
}

/** Words too common to explain anything on a card. */
const PLAIN = new Set(
  "a an and are at be but by can could do for from has have hi hello hey i i'm in is it it's its me my no not of on or our so that the their there this to us was we were what when will with would you your".split(
    ' ',
  ),
);

function topCues(explanation: Array<{ token: string; weight?: number }> | undefined): string[] {
  return (explanation ?? [])
    .filter((e) => e.token && !isConceptToken(e.token) && !PLAIN.has(e.token) && (e.weight ?? 0) > 0)
    .sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0))
    .map((e) => e.token)
    .filter((t, i, all) => all.indexOf(t) === i)
    .slice(0, 3);
}
