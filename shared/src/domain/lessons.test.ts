import { expect, test } from 'vitest';
import { styleDraft } from './draft-style';
import { type Lesson, lessonPath, observe, parseLesson, renderLesson, withLessonIndex } from './lessons';
import { greetingCorrection, phrasingCorrection, signOffCorrection } from './style-corrections';

const DRAFT = 'Hi Maria, thanks for letting us know. We will confirm a time with you before anyone comes by.';

test('an edit that adds or changes the closing is a sign-off correction; one that keeps it is not', () => {
  expect(signOffCorrection(DRAFT, `${DRAFT}\n\n— Sam, Oak Properties`)).toBe('— Sam, Oak Properties');
  expect(
    signOffCorrection('Hi Tom,\n\nSee you then.\n\nSwitchboard', 'Hi Tom,\n\nSee you then.\n\nBest,\nSam'),
  ).toBe('Best,\nSam');
  expect(signOffCorrection(`${DRAFT}\n\nSwitchboard`, `Hello Maria.\n\nSwitchboard`)).toBeUndefined();
  expect(signOffCorrection(DRAFT, `${DRAFT}\n\nWe will be there Tuesday.`)).toBeUndefined();
});

test('seen twice, the sign-off is written into the next draft; seen once it is not', () => {
  const base = {
    tool: 'send_message',
    aspect: 'sign-off' as const,
    text: '— Sam, Oak Properties',
    updatedAt: 'x',
  };
  const once = observe(undefined, base, 'ex1');
  expect(styleDraft([once], 'send_message', { to: '+1', text: DRAFT }).applied).toEqual([]);
  const twice = observe(once, base, 'ex2');
  const r = styleDraft([twice], 'send_message', { to: '+1', text: DRAFT });
  expect(r.args.text).toBe(`${DRAFT}\n\n— Sam, Oak Properties`);
  expect(r.applied[0]).toMatch(/Sign text messages off with “— Sam, Oak Properties”/);
  // An email's own closing is replaced, not doubled; another tool is untouched.
  const mail = styleDraft([{ ...twice, tool: 'send_email', text: 'Best,\nSam' }], 'send_email', {
    body: 'Hi Tom,\n\nSee you then.\n\nSwitchboard',
  });
  expect(mail.args.body).toBe('Hi Tom,\n\nSee you then.\n\nBest,\nSam');
  expect(styleDraft([twice], 'send_email', { body: DRAFT }).applied).toEqual([]);
});

test('the file round-trips, and the MEMORY.md index is replaced in place', () => {
  const l: Lesson = {
    tool: 'send_email',
    aspect: 'note',
    text: "don't promise a time",
    seen: 1,
    examples: ['e'],
    updatedAt: 'now',
  };
  expect(parseLesson(renderLesson(l))).toEqual(l);
  expect(lessonPath(l)).toMatch(/^lessons\/send_email-note-[0-9a-f]{8}\.md$/);
  const once = withLessonIndex('# Memory\n\nNotes.', [{ path: lessonPath(l), lesson: l }]);
  expect(once).toContain('## Lessons from the team');
  const twice = withLessonIndex(once, []);
  expect(twice.match(/Lessons from the team/g)).toHaveLength(1);
  expect(twice).toContain('(none yet)');
  expect(twice.startsWith('# Memory\n\nNotes.')).toBe(true);
});

const twice = (l: Omit<Lesson, 'seen' | 'examples'>) => observe(observe(undefined, l, 'a'), l, 'b');

test('a greeting swapped on approval is a greeting lesson; seen twice it opens the next draft', () => {
  expect(greetingCorrection(DRAFT, DRAFT.replace(/^Hi/, 'Hello'))).toBe('Hello');
  expect(greetingCorrection(DRAFT, `${DRAFT} Thanks!`)).toBeUndefined();
  expect(greetingCorrection('Thanks for the note.', 'Hello, thanks for the note.')).toBeUndefined();
  const hello = twice({ tool: 'send_message', aspect: 'greeting', text: 'Hello', updatedAt: 'x' });
  const r = styleDraft([hello], 'send_message', { text: 'Hi Tom, see you at 3pm.' });
  expect(r.args.text).toBe('Hello Tom, see you at 3pm.');
  expect(r.applied[0]).toMatch(/Open text messages with “Hello …”/);
  // A draft without a greeting gets none invented.
  expect(styleDraft([hello], 'send_message', { text: 'See you at 3pm.' }).applied).toEqual([]);
});

test('one template sentence said another way is a phrasing lesson; a rewrite or a greeting change is not', () => {
  const drafted =
    'Hi Maria, thanks for letting us know. We are arranging a technician and will confirm a time today.';
  const approved = 'Hi Maria, thanks for letting us know. A technician will call you today to set a time.';
  expect(phrasingCorrection(drafted, approved)).toEqual({
    from: 'We are arranging a technician and will confirm a time today.',
    to: 'A technician will call you today to set a time.',
  });
  expect(phrasingCorrection(drafted, approved.replace(/^Hi/, 'Hello'))).toEqual(
    phrasingCorrection(drafted, approved),
  );
  expect(phrasingCorrection(drafted, drafted.replace(/^Hi/, 'Hello'))).toBeUndefined();
  expect(phrasingCorrection(drafted, 'Hello Maria. Someone will call. Soon.')).toBeUndefined();
  expect(phrasingCorrection(drafted, `${drafted}\n\n— Sam`)).toBeUndefined();
  const lesson = twice({
    tool: 'send_message',
    aspect: 'phrasing',
    text: 'A technician will call you today to set a time.',
    from: 'We are arranging a technician and will confirm a time today.',
    updatedAt: 'x',
  });
  const next = styleDraft([lesson], 'send_message', { text: drafted.replace('Maria', 'Tom') });
  expect(next.args.text).toBe(
    'Hi Tom, thanks for letting us know. A technician will call you today to set a time.',
  );
  expect(lessonPath(lesson)).not.toBe(lessonPath({ ...lesson, from: 'Another sentence here.' }));
  expect(parseLesson(renderLesson(lesson))).toEqual(lesson);
});

test('a person’s signature preference wins over a learned sign-off: one closing, never two', () => {
  const learned = twice({
    tool: 'send_email',
    aspect: 'sign-off',
    text: 'Best,\nOak Properties',
    updatedAt: 'x',
  });
  const body = 'Hi Tom,\n\nSee you then.\n\nSwitchboard';
  const signed = styleDraft(
    [learned],
    'send_email',
    { body },
    { signature: { text: '– Sam', owner: 'Sam Chen' } },
  );
  expect(signed.args.body).toBe('Hi Tom,\n\nSee you then.\n\n– Sam');
  expect(signed.applied).toEqual(['Signed with Sam Chen’s signature (Settings)']);
  // Without a preference the lesson signs it; a draft already signed that way is left alone.
  expect(styleDraft([learned], 'send_email', { body }).args.body).toBe(
    'Hi Tom,\n\nSee you then.\n\nBest,\nOak Properties',
  );
  expect(
    styleDraft([], 'send_email', { body: 'Hi.\n\n– Sam' }, { signature: { text: '– Sam', owner: 'Sam' } })
      .applied,
  ).toEqual([]);
});
