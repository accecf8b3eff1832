import { expect, test } from 'vitest';
import { nearDuplicateGroups, nearDuplicates, similarity } from './split';

// Texts with shared words at many overlaps, short and long, and two with no word at all.
const TEXTS = [
  'the sink is leaking',
  'the sink is leaking again',
  'The sink is LEAKING!',
  'kitchen sink leaking under the cabinet',
  'is the 2 bedroom on Elm still available',
  'is the 2 bedroom on Elm available',
  'is the studio on Elm still available',
  'rent is due on the first',
  'rent is due the first of the month',
  '🔥🔥',
  '!!!',
  'water',
  'water water',
  'no heat',
];

test('near-duplicates across two lists are exactly the pairs at or above the threshold', () => {
  const a = TEXTS.slice(0, 7);
  const b = TEXTS.slice(5);
  for (const threshold of [0.3, 0.5, 0.7, 1]) {
    const brute = a.flatMap((h) => b.filter((t) => similarity(h, t) >= threshold).map((t) => `${h} | ${t}`));
    const found = nearDuplicates(a, b, threshold).map((p) => `${p.heldApart} | ${p.training}`);
    expect(found.sort(), String(threshold)).toEqual(brute.sort());
  }
});

test('near-duplicate groups link alike texts transitively, and texts without a word only to each other', () => {
  const groups = nearDuplicateGroups(TEXTS, 0.7);
  expect(groups.get('The sink is LEAKING!')).toBe('the sink is leaking');
  expect(groups.get('the sink is leaking again')).toBe('the sink is leaking');
  expect(groups.get('is the 2 bedroom on Elm available')).toBe('is the 2 bedroom on Elm still available');
  expect(groups.get('!!!')).toBe('🔥🔥');
  expect(groups.get('water water')).toBe('water');
  expect(groups.get('no heat')).toBe('no heat');
});
