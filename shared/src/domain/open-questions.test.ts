import { expect, test } from 'vitest';
import { openQuestions } from './open-questions';

test('the questions a reply to a lead cannot answer: availability, viewings and pets are answered, the rest quoted', () => {
  expect(
    openQuestions([
      'Hi! Is the 2 bed on Elm still available? Can I see it Saturday? Is it on the ground floor?',
      'are dogs allowed?\nis parking included? what about laundry? and heat?',
    ]),
  ).toEqual(['Is it on the ground floor?', 'is parking included?']);
  expect(openQuestions(['I would like to apply.', 'ok?'])).toEqual([]);
  // The question after a texted preamble is what is quoted; "do you have anything?" is availability.
  expect(openQuestions(["I saw your listing for the place on 5th street, what's the rent?"])).toEqual([
    "what's the rent?",
  ]);
  expect(
    openQuestions(["Hello, I'm looking for a 2 bedroom starting in March, do you have anything?"]),
  ).toEqual([]);
  const long = `is ${'the building quiet and '.repeat(5)}safe?`;
  expect(openQuestions([long])[0]).toMatch(/^is the building .{60,}…\?$/);
  expect(openQuestions([long])[0]?.length).toBeLessThanOrEqual(80);
});
