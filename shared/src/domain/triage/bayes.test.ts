import { describe, expect, it } from 'vitest';
import { loadBayes } from './bayes';
import { EXAMPLES } from './examples.test-fixture';
import { buildNeighbours } from './neighbours';

const OPTIONS = { alpha: 0.1, temperature: 1 };

describe('naive Bayes over the shipped examples', () => {
  it("leans toward the class whose examples share the text's features, as probabilities", () => {
    const bayes = loadBayes(buildNeighbours(EXAMPLES), OPTIONS);
    const lead = bayes('do you allow cats? is the studio still available');
    expect(Math.max(...Object.values(lead))).toBe(lead.lead);
    expect(Object.values(lead).reduce((a, x) => a + x, 0)).toBeCloseTo(1, 9);
    const repair = bayes('the bathroom faucet drips');
    expect(repair.maintenance).toBeGreaterThan(repair.lead as number);
    expect(repair.maintenance).toBeGreaterThan(repair.team_question as number);
  });

  it('has no view on a text with no known feature, and reads the index after a round trip through JSON', () => {
    const json = JSON.parse(JSON.stringify(buildNeighbours(EXAMPLES)));
    const bayes = loadBayes(json, OPTIONS);
    expect(bayes('zzz qqq xxv yyw wwq vvz uuq ttz ssq rrz ppq')).toEqual({
      lead: 1 / 3,
      maintenance: 1 / 3,
      team_question: 1 / 3,
    });
    expect(bayes('our dishwasher will not drain').maintenance).toBeGreaterThan(0.5);
  });
});
