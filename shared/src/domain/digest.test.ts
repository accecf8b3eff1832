import { expect, test } from 'vitest';
import type { Conversation } from '../contracts/conversations';
import { composeDigest } from './digest';

const conv = (id: string, pendingCount: number): Conversation => ({
  id,
  title: id,
  source: 'sms',
  preview: '',
  createdAt: '2026-11-24T08:00:00.000Z',
  updatedAt: '2026-11-24T08:00:00.000Z',
  lastMessageAt: '2026-11-24T08:00:00.000Z',
  createdBy: 'system',
  pendingCount,
  readBy: {},
});

test('cards waiting are counted in cards, not conversations (seen on npm start: 6 cards read as 4)', () => {
  const d = composeDigest({
    conversations: [conv('Maria Lopez', 3), conv('Bob Martinez', 1), conv('Quiet', 0)],
    followups: [],
    now: new Date('2026-11-24T10:15:00.000Z'),
    timezone: 'Asia/Kathmandu',
  });
  expect(d.counts.waiting).toBe(4);
  expect(d.body).toBe('4 cards waiting · 0 urgent · 0 leads waiting on us · 0 follow-ups due');
  expect(d.text).toContain('**Cards waiting (4)**\n- Maria Lopez: 3 to decide\n- Bob Martinez: 1 to decide');
});
