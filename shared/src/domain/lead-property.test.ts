import { expect, test } from 'vitest';
import { describedUnitOf, leadPropertyOf } from './lead-property';

test('the address a lead writes about, and not the numbers around it', () => {
  expect(leadPropertyOf('Hi! Is the 2 bedroom at 48 Elm Ave still available?')).toBe('48 Elm Ave');
  expect(leadPropertyOf('Apartment at 48 Elm Ave. Hi, is it free?')).toBe('48 Elm Ave');
  expect(leadPropertyOf('I am interested in 12 Oak St #4B')).toBe('12 Oak St #4B');
  expect(leadPropertyOf('Could I see 31 Birch St. My credit score is 720')).toBe('31 Birch St');
  expect(leadPropertyOf('Can I come Thursday at 5? I have 2 Dogs')).toBeUndefined();
  expect(leadPropertyOf('Looking for 2 Bedrooms near the park')).toBeUndefined();
  expect(leadPropertyOf('Is parking included?')).toBeUndefined();
});

test('a unit described without a number, in the lead’s own words, and not a day', () => {
  expect(describedUnitOf('is the 2 bedroom on Elm still available?')).toBe('the 2 bedroom on Elm');
  expect(describedUnitOf('Is the Studio at Harbor View open')).toBe('the studio at Harbor View');
  expect(describedUnitOf('the two-bed apartment on Pine, is it taken')).toBe('the two-bed on Pine');
  expect(describedUnitOf('can I see the studio on Monday')).toBeUndefined();
  expect(describedUnitOf('is the 2 bedroom still available')).toBeUndefined();
  expect(describedUnitOf('the house on the corner')).toBeUndefined();
});
