import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { dueFields } from '../../shared/src/adapters/clickup-http';

/** The ClickUp adapter against ClickUp's documented date-only convention (test/contracts/vendor/clickup/). */
test('a due day is sent as the documented date-only value (4 am local, due_date_time false)', () => {
  const doc = JSON.parse(readFileSync('test/contracts/vendor/clickup/date-only-due-dates.json', 'utf8')) as {
    create_task_date_only_example: { due_date: number; due_date_time: boolean };
  };
  expect(dueFields('2026-03-08', 'America/New_York')).toEqual({
    due_date: doc.create_task_date_only_example.due_date,
    due_date_time: doc.create_task_date_only_example.due_date_time,
  });
});
