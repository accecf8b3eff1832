import { describe, expect, it } from 'vitest';
import { EXAMPLES } from './examples.test-fixture';
import { buildNeighbours, loadNeighbours } from './neighbours';

describe('nearest training examples', () => {
  it('gives the classes of the most alike examples, weighted by how alike they are', () => {
    const near = loadNeighbours(buildNeighbours(EXAMPLES), 2);
    const shares = near('is the studio still available, we have two cats');
    expect(shares.lead).toBeCloseTo(1, 5);
    expect(shares.maintenance).toBe(0);
    const repair = near('the bathroom faucet drips');
    expect(repair.maintenance).toBeGreaterThan(0.5);
  });

  it('gives nothing when no example shares a feature, and survives a round trip through JSON', () => {
    const json = JSON.parse(JSON.stringify(buildNeighbours(EXAMPLES)));
    const near = loadNeighbours(json, 4);
    expect(Object.values(near('zzz qqq xxv yyw wwq vvz uuq ttz ssq rrz ppq')).every((x) => x === 0)).toBe(
      true,
    );
    expect(Object.keys(near('zzz'))).toEqual(['lead', 'maintenance', 'team_question']);
  });

  it('is deterministic: the same examples give the same bytes', () => {
    expect(buildNeighbours(EXAMPLES)).toEqual(buildNeighbours([...EXAMPLES]));
  });
});
