import { expect, test } from 'vitest';
import { threadLabel } from './thread-label';

test('a thread that holds texts and email says so, whichever channel opened it', () => {
  expect(threadLabel({ source: 'sms', channels: ['sms', 'email'] })).toBe('Texts and email');
  expect(threadLabel({ source: 'email', channels: ['sms'] })).toBe('Texts and email');
  expect(threadLabel({ source: 'sms' })).toBe('Text messages');
  expect(threadLabel({ source: 'email', channels: ['email'] })).toBe('Email');
  expect(threadLabel({ source: 'chat' })).toBe('Team chat');
});
