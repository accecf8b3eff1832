import { expect, test } from 'vitest';
import {
  applyStyleLessons,
  type Lesson,
  lessonPath,
  observe,
  parseLesson,
  renderLesson,
  signOffCorrection,
  withLessonIndex,
} from './lessons';

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
  expect(applyStyleLessons([once], 'send_message', { to: '+1', text: DRAFT }).applied).toEqual([]);
  const twice = observe(once, base, 'ex2');
  const r = applyStyleLessons([twice], 'send_message', { to: '+1', text: DRAFT });
  expect(r.args.text).toBe(`${DRAFT}\n\n— Sam, Oak Properties`);
  expect(r.applied[0]).toMatch(/Sign text messages off with “— Sam, Oak Properties”/);
  // An email's own closing is replaced, not doubled; another tool is untouched.
  const mail = applyStyleLessons([{ ...twice, tool: 'send_email', text: 'Best,\nSam' }], 'send_email', {
    body: 'Hi Tom,\n\nSee you then.\n\nSwitchboard',
  });
  expect(mail.args.body).toBe('Hi Tom,\n\nSee you then.\n\nBest,\nSam');
  expect(applyStyleLessons([twice], 'send_email', { body: DRAFT }).applied).toEqual([]);
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

test('a person’s signature preference wins over a learned sign-off lesson: one sign-off, never two', () => {
  const lesson: Lesson = {
    tool: 'send_message',
    aspect: 'sign-off',
    text: '— Oak Properties team',
    seen: 3,
    examples: [],
    updatedAt: 'x',
  };
  const signature = { text: '— Sam, Oak Properties', owner: 'Sam Chen' };
  const r = applyStyleLessons([lesson], 'send_message', { to: '+1', text: DRAFT }, { signature });
  expect(r.args.text).toBe(`${DRAFT}\n\n— Sam, Oak Properties`);
  expect(r.applied).toEqual(['Signed with Sam Chen’s signature from Settings (“— Sam, Oak Properties”)']);
  // A draft that already ends with the lesson's sign-off (the model read it in MEMORY.md) has it replaced.
  const model = applyStyleLessons(
    [],
    'send_message',
    { text: `${DRAFT}\n\n— Oak Properties team` },
    { signature, strict: true },
  );
  expect(model.args.text).toBe(`${DRAFT}\n\n— Sam, Oak Properties`);
  // Strict (a model's draft): a last line without closing words is content, kept; the signature is added.
  const content = applyStyleLessons(
    [],
    'send_email',
    { body: 'Hi Tom,\n\nCall me if anything comes up' },
    { signature, strict: true },
  );
  expect(content.args.body).toBe('Hi Tom,\n\nCall me if anything comes up\n\n— Sam, Oak Properties');
  // Already signed: nothing to do. A reminder push to a team member carries no signature.
  expect(
    applyStyleLessons([], 'send_message', { text: `${DRAFT}\n\n— Sam, Oak Properties` }, { signature })
      .applied,
  ).toEqual([]);
  expect(
    applyStyleLessons([], 'schedule_followup', { kind: 'reminder', text: 'Call Bob' }, { signature }).applied,
  ).toEqual([]);
});
