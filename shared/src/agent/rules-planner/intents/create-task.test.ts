import { expect, test } from 'vitest';
import { taskSlots } from './create-task';

const NOW = new Date('2026-11-24T15:00:00Z'); // a Tuesday
const TZ = 'America/Los_Angeles';

test('"… for Jo by Friday" (either order) gives the assignee and the due day; the rest is the name', () => {
  expect(taskSlots('fix the heater at 12 Oak St for Jo by Friday', NOW, TZ)).toEqual({
    name: 'fix the heater at 12 Oak St',
    assignee: 'Jo',
    dueDate: '2026-11-27',
  });
  expect(taskSlots('call the plumber due tomorrow assigned to Sam Chen', NOW, TZ)).toEqual({
    name: 'call the plumber',
    assignee: 'Sam Chen',
    dueDate: '2026-11-25',
  });
  // "for" before an address or a lower-case word is part of the task, not a person.
  expect(taskSlots('order filters for 12 Oak St', NOW, TZ)).toEqual({ name: 'order filters for 12 Oak St' });
  expect(taskSlots('buy bulbs for the hallway', NOW, TZ)).toEqual({ name: 'buy bulbs for the hallway' });
});
