import { expect, test } from 'vitest';
import { leadPropertyOf } from './lead-property';

test('the address a lead writes about, and not the numbers around it', () => {
  expect(leadPropertyOf('Hi! Is the 2 bedroom at 48 Elm Ave still available?')).toBe('48 Elm Ave');
  expect(leadPropertyOf('Apartment at 48 Elm Ave. Hi, is it free?')).toBe('48 Elm Ave');
  expect(leadPropertyOf('I am interested in 12 Oak St #4B')).toBe('12 Oak St #4B');
  expect(leadPropertyOf('Could I see 31 Birch St. My credit score is 720')).toBe('31 Birch St');
  expect(leadPropertyOf('Can I come Thursday at 5? I have 2 Dogs')).toBeUndefined();
  expect(leadPropertyOf('Looking for 2 Bedrooms near the park')).toBeUndefined();
  expect(leadPropertyOf('Is parking included?')).toBeUndefined();
});
