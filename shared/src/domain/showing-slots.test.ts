import { describe, expect, it } from 'vitest';
import { openSlots, slotsSentence } from './showing-slots';

const zone = 'America/New_York';
// Saturday 15 March 2025, 16:30 in New York.
const now = new Date('2025-03-15T20:30:00Z');

describe('openSlots', () => {
  it('skips Sunday, keeps two hours of notice, and spreads the offer over days', () => {
    const slots = openSlots([], { now, zone });
    // Saturday 18:30 is past showing hours; Sunday is closed: Monday, Tuesday, Wednesday at opening.
    expect(slots.map((s) => s.label)).toEqual([
      'Mon 17 Mar at 10:00',
      'Tue 18 Mar at 10:00',
      'Wed 19 Mar at 10:00',
    ]);
  });

  it('never offers a slot that overlaps a busy period, even partly', () => {
    const busy = [{ start: '2025-03-17T10:15:00-04:00', end: '2025-03-17T17:45:00-04:00' }];
    const slots = openSlots(busy, { now, zone, days: 4, count: 2 });
    expect(slots.map((s) => s.label)).toEqual(['Tue 18 Mar at 10:00', 'Tue 18 Mar at 10:30']);
  });

  it('offers nothing when the calendar is full, so the reply says a person will confirm', () => {
    const busy = [{ start: '2025-03-15T00:00:00-04:00', end: '2025-03-25T00:00:00-04:00' }];
    expect(openSlots(busy, { now, zone })).toEqual([]);
  });
});

describe('slotsSentence', () => {
  it('reads as a person would write it', () => {
    expect(slotsSentence([{ label: 'a' }, { label: 'b' }, { label: 'c' }])).toBe('a, b or c');
    expect(slotsSentence([{ label: 'a' }])).toBe('a');
  });
});
