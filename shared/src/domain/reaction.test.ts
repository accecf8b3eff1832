import { describe, expect, it } from 'vitest';
import { reactionOf } from './reaction';

describe('reactionOf: a reaction is recognised by what it is', () => {
  it.each([
    ['👍', 'emoji'],
    ['❤️', 'emoji'],
    ['  😂 ', 'emoji'],
    ['👍🏽', 'emoji'],
    ['👨‍👩‍👧', 'emoji'],
    ['Liked “Your rent receipt is attached”', 'tapback'],
    ['Loved "See you at 5"', 'tapback'],
    ['Laughed at “the plumber is here”', 'tapback'],
    ['Emphasized “Water is off until 3”', 'tapback'],
    ['Reacted 😮 to “The heater is fixed”', 'tapback'],
    ['👍 to “Tomorrow at 9 works”', 'tapback'],
    ['Removed a heart from “See you at 5”', 'tapback'],
  ])('%j is a reaction (%s)', (text, form) => {
    expect(reactionOf(text)?.form).toBe(form);
  });

  it.each([
    '🚨 Water pouring through the ceiling',
    '🚨🚨',
    '👍 thanks, see you then',
    'ok 👍',
    'Liked the apartment, when can I visit?',
    'Loved “the view” — can I see it again Saturday?',
    'Hello',
    '',
    'to “x”',
  ])('%j is a text', (text) => {
    expect(reactionOf(text)).toBeNull();
  });
});
