import { judgeUrgency } from '../urgency';
import type { Example } from './example';
import { classOf, TRIAGE_CLASSES, type TriageClass } from './labels';

/** Figures on one split, for the bench and for the floor tests. */
export interface Evaluation {
  n: number;
  accuracy: number;
  emergencyRecall: number;
  emergencyPrecision: number;
  /** confusion[expected][predicted] */
  confusion: Record<TriageClass, Record<TriageClass, number>>;
  misses: Array<{ text: string; expected: TriageClass; predicted: TriageClass }>;
}

export type Predict = (text: string) => Promise<TriageClass> | TriageClass;

export async function evaluate(examples: readonly Example[], predict: Predict): Promise<Evaluation> {
  const confusion = Object.fromEntries(
    TRIAGE_CLASSES.map((e) => [e, Object.fromEntries(TRIAGE_CLASSES.map((p) => [p, 0]))]),
  ) as Evaluation['confusion'];
  const misses: Evaluation['misses'] = [];
  for (const e of examples) {
    const expected = classOf(e.label);
    const predicted = await predict(e.text);
    confusion[expected][predicted] += 1;
    if (expected !== predicted) misses.push({ text: e.text, expected, predicted });
  }
  const correct = TRIAGE_CLASSES.reduce((s, c) => s + confusion[c][c], 0);
  const tp = confusion.emergency.emergency;
  const actual = TRIAGE_CLASSES.reduce((s, c) => s + confusion.emergency[c], 0);
  const flagged = TRIAGE_CLASSES.reduce((s, c) => s + confusion[c].emergency, 0);
  return {
    n: examples.length,
    accuracy: examples.length ? correct / examples.length : Number.NaN,
    emergencyRecall: actual ? tp / actual : Number.NaN,
    emergencyPrecision: flagged ? tp / flagged : Number.NaN,
    confusion,
    misses,
  };
}

/** A text that only closes a thread, as the rules planner has recognised it so far. */
const CLOSING_WORDS =
  '(?:ok(?:ay)?|k|thanks?|thank you|thx|ty|got it|sounds good|great|perfect|cool|will do|see you(?: then| soon| tomorrow)?|you too|no problem|np|so much|very much|a lot|again)';
const CLOSING = new RegExp(`^${CLOSING_WORDS}(?: ${CLOSING_WORDS})*$`);

/**
 * The baseline: what rules mode did before the classifier. Urgency keywords make an emergency, a closing
 * text is thanks, and everything else got the same generic acknowledgement, i.e. `other`.
 */
export function keywordBaseline(urgentKeywords: readonly string[]): Predict {
  return (text) => {
    if (judgeUrgency(text, [...urgentKeywords]).urgent) return 'emergency';
    const plain = text
      .toLowerCase()
      .replace(/[^a-z\s]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return CLOSING.test(plain) ? 'thanks' : 'other';
  };
}

const SHORT: Record<TriageClass, string> = {
  emergency: 'emerg',
  maintenance: 'maint',
  lead: 'lead',
  showing: 'show',
  rent: 'rent',
  lease: 'lease',
  vendor_confirmation: 'vendor',
  team_question: 'team',
  thanks: 'thanks',
  bulk: 'bulk',
  scam: 'scam',
  other: 'other',
};

/** The confusion matrix as text: rows are the true class, columns what was predicted. */
export function formatConfusion(confusion: Evaluation['confusion']): string {
  const w = 7;
  const head = `${'true \\ got'.padEnd(w + 3)}${TRIAGE_CLASSES.map((c) => SHORT[c].padStart(w)).join('')}`;
  const rows = TRIAGE_CLASSES.map(
    (e) =>
      `${SHORT[e].padEnd(w + 3)}${TRIAGE_CLASSES.map((p) => String(confusion[e][p] || '·').padStart(w)).join('')}`,
  );
  return [head, ...rows].join('\n');
}
