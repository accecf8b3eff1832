import { expect, test } from 'vitest';
import { styleDraft } from './draft-style';

/**
 * The signature on a MODEL's draft (follow #20; precedence over lessons is cards' test in lessons.test.ts):
 * a closing the model wrote (e.g. the sign-off lesson it read in MEMORY.md) is replaced, never doubled; a
 * last line that is content stays, the signature after it.
 */
const signature = { text: '— Sam, Oak Properties', owner: 'Sam Chen' };
const DRAFT = 'Hi Maria, thanks for letting us know. We will confirm a time with you before anyone comes by.';

test('a model draft’s own closing is replaced by the signature; its last line of content is kept', () => {
  const closed = styleDraft(
    [],
    'send_message',
    { text: `${DRAFT}\n\n— Oak Properties team` },
    { signature, strict: true },
  );
  expect(closed.args.text).toBe(`${DRAFT}\n\n— Sam, Oak Properties`);
  const content = styleDraft(
    [],
    'send_email',
    { body: 'Hi Tom,\n\nCall me if anything comes up' },
    { signature, strict: true },
  );
  expect(content.args.body).toBe('Hi Tom,\n\nCall me if anything comes up\n\n— Sam, Oak Properties');
  // The template rule (not strict) takes the same short line for a name and replaces it.
  expect(styleDraft([], 'send_email', { body: 'Hi Tom,\n\nSwitchboard' }, { signature }).args.body).toBe(
    'Hi Tom,\n\n— Sam, Oak Properties',
  );
  expect(
    styleDraft([], 'send_message', { text: `${DRAFT}\n\n— Sam, Oak Properties` }, { signature }).applied,
  ).toEqual([]);
});
