import { expect, test } from 'vitest';
import type { PendingAction } from '../contracts/conversations';
import { observationsOf } from './learn-from-decision';

const card = (from: string, to: string, over: Partial<PendingAction> = {}): PendingAction => ({
  id: 'act_1',
  conversationId: 'c_1',
  runId: 'run_1',
  tool: 'send_message',
  args: { to: '+14155550111', text: to },
  argsHash: 'h',
  summary: 'Text Maria',
  status: 'EXECUTED',
  proposedBy: 'planner',
  reason: 'r',
  review: {},
  createdAt: 'x',
  updatedAt: 'x',
  version: 1,
  decidedBy: 'sam@oakproperties.example',
  decidedByName: 'Sam Chen',
  edit: { from: { to: '+14155550111', text: from }, to: { to: '+14155550111', text: to } },
  ...over,
});

const DRAFT =
  'Hi Maria, thanks for letting us know. We are arranging a technician and will confirm a time today.';

test('one approved edit can teach a greeting, a phrasing and a sign-off at once, each its own lesson', () => {
  const approved =
    'Hello Maria, thanks for letting us know. A technician will call you today to set a time.\n\n— Sam, Oak Properties';
  const seen = observationsOf(card(DRAFT, approved));
  expect(seen.map((o) => [o.aspect, o.text, o.from])).toEqual([
    ['sign-off', '— Sam, Oak Properties', undefined],
    ['greeting', 'Hello', undefined],
    [
      'phrasing',
      'A technician will call you today to set a time.',
      'We are arranging a technician and will confirm a time today.',
    ],
  ]);
  expect(seen.every((o) => o.ref === 'act_1' && o.example.startsWith('Sam Chen approved'))).toBe(true);
});

test('an unedited approval teaches nothing; a deny teaches its reason as a note', () => {
  expect(observationsOf(card(DRAFT, DRAFT))).toEqual([]);
  const denied = observationsOf(
    card(DRAFT, DRAFT, { status: 'DENIED', denyReason: 'never promise a time', edit: undefined }),
  );
  expect(denied).toMatchObject([{ aspect: 'note', text: 'never promise a time' }]);
});
