import { describe, expect, test } from 'vitest';
import { noteRead, readHere, shownUnread } from './read-marks';

const row = (id: string, lastMessageAt: string, unread = true) => ({ id, lastMessageAt, unread });

describe('the unread state the list shows', () => {
  test('the API says read: read', () => {
    expect(shownUnread(row('c_read', '2026-11-24T10:00:00.000Z', false), undefined)).toBe(false);
  });

  test('the conversation open beside the list is read, whatever the page fetched before its mark says', () => {
    const c = row('c_open', '2026-11-24T10:00:00.000Z');
    expect(shownUnread(c, 'c_open')).toBe(false);
    expect(shownUnread(c, 'c_other')).toBe(true);
  });

  test('marked read in this tab up to its newest message: read; something newer: unread again', () => {
    noteRead('c_marked', '2026-11-24T10:00:05.000Z');
    expect(shownUnread(row('c_marked', '2026-11-24T10:00:05.000Z'), undefined)).toBe(false);
    expect(shownUnread(row('c_marked', '2026-11-24T10:00:04.000Z'), undefined)).toBe(false);
    expect(shownUnread(row('c_marked', '2026-11-24T10:01:00.000Z'), undefined)).toBe(true);
  });

  test('a late answer never moves a mark back', () => {
    noteRead('c_late', '2026-11-24T10:02:00.000Z');
    noteRead('c_late', '2026-11-24T10:01:00.000Z');
    expect(readHere('c_late', '2026-11-24T10:02:00.000Z')).toBe(true);
  });
});
