import { expect, test } from 'vitest';
import { repairSubject } from './repair-subject';

test.each([
  ['Hi, the kitchen sink is leaking slowly', 'the kitchen sink'],
  ['my master bathroom toilet keeps running', 'the master bathroom toilet'],
  ['The dryer makes a loud banging noise', 'the dryer'],
  ['our AC stopped blowing cold air', 'the AC'],
  ['the a/c is out again', 'the A/C'],
  ['Garbage disposal is jammed', 'the garbage disposal'],
  ["Hey, the porch light bulb is out and I can't reach it", 'the porch light'],
  ['a bird got into the dryer vent and is nesting', 'the dryer vent'],
  ['front door lock is sticking', 'the front door'],
  ['I got locked out, can someone help', undefined],
  ['the tape on the wall is peeling', undefined],
  ['when is rent due this month?', undefined],
])('%s → %s', (text, subject) => {
  expect(repairSubject(text)).toBe(subject);
});
