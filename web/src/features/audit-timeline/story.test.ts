import { describe, expect, test } from 'vitest';
import type { ConversationDetail } from '../../../../shared/src/contracts/api';
import type { AuditEvent } from '../../../../shared/src/contracts/conversations';
import { buildStory } from './story';

const card = {
  id: 'a1',
  conversationId: 'c1',
  runId: 'r1',
  tool: 'send_message',
  args: { to: '+14155550111', text: 'We will come at 9.' },
  argsHash: 'h',
  summary: 'Text Maria Lopez: “We will come at 9.”',
  status: 'EXECUTED',
  createdAt: '2026-11-24T14:00:05Z',
  updatedAt: '2026-11-24T14:02:00Z',
  version: 3,
  decidedBy: 'sam@oakproperties.example',
  decidedByName: 'Sam Chen',
} as unknown as ConversationDetail['actions'][number];

const detail = {
  conversation: {
    id: 'c1',
    title: 'Maria Lopez',
    source: 'sms',
    preview: '',
    createdAt: '2026-11-24T14:00:00Z',
    lastMessageAt: '2026-11-24T14:00:00Z',
    createdBy: 'system',
    pendingCount: 0,
    unread: false,
    urgent: { at: '2026-11-24T14:00:00Z', reason: 'flooding', pagedAt: '2026-11-24T14:00:03Z' },
  },
  messages: [
    {
      id: 'm1',
      conversationId: 'c1',
      role: 'inbound',
      text: 'Water is flooding from the ceiling!\nPlease come',
      createdAt: '2026-11-24T14:00:00Z',
      author: { kind: 'contact', name: 'Maria Lopez' },
      channel: 'sms',
    },
  ],
  actions: [card],
} as unknown as ConversationDetail;

const ev = (
  type: string,
  at: string,
  actor = 'switchboard',
  data: unknown = { actionId: 'a1', tool: 'send_message' },
) => ({ id: `${type}-${at}`, conversationId: 'c1', type, at, actor, data }) as AuditEvent;

describe('the timeline story', () => {
  test('received → triaged → drafted → approved by a named person → sent, oldest first', () => {
    const story = buildStory(detail, [
      ev('action.executed', '2026-11-24T14:02:00Z'),
      ev('approval.approved', '2026-11-24T14:01:30Z', 'sam@oakproperties.example'),
      ev('action.proposed', '2026-11-24T14:00:05Z'),
      ev('action.executed', '2026-11-24T14:00:03Z', 'switchboard', { actionId: 'x', tool: 'escalate' }),
    ]);
    expect(story.map((p) => [p.label, p.who])).toEqual([
      ['Text received', 'Maria Lopez'],
      ['Triaged urgent', undefined],
      ['On-call paged', undefined],
      ['Drafted for approval', undefined],
      ['Approved', 'Sam Chen'],
      ['Sent', undefined],
    ]);
    expect(story[0]?.detail).toBe('Water is flooding from the ceiling!');
    expect(story.at(-1)?.detail).toBe(card.summary);
  });

  test('an audit type it does not know is still shown, by its own name', () => {
    const [p] = buildStory(
      {
        ...detail,
        messages: [],
        conversation: { ...detail.conversation, urgent: undefined },
      } as ConversationDetail,
      [ev('followup.scheduled', '2026-11-24T15:00:00Z', 'jo@oakproperties.example', {})],
    );
    expect(p).toMatchObject({ label: 'Followup scheduled', who: 'jo@oakproperties.example' });
  });
});
