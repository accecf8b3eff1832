import { expect, test } from 'vitest';
import { DEFAULT_NOTIFICATION_CHOICES, quietHours } from '../contracts/notification-choices';
import { inQuietHours, wantsPush } from './notification-routing';

const nights = { start: '22:00', end: '07:00', timezone: 'America/Los_Angeles' };
// 23:30 and 12:00 in Los Angeles (UTC−8 in November).
const lateNight = new Date('2026-11-24T07:30:00Z');
const noon = new Date('2026-11-24T20:00:00Z');

test('quiet hours are read in their own zone and may cross midnight', () => {
  expect(inQuietHours(nights, lateNight)).toBe(true);
  expect(inQuietHours(nights, noon)).toBe(false);
  expect(inQuietHours({ ...nights, timezone: 'UTC' }, lateNight)).toBe(false);
  expect(inQuietHours({ start: '12:00', end: '13:00', timezone: 'America/Los_Angeles' }, noon)).toBe(true);
  // The end is not inside: 07:00 sharp is awake again.
  expect(inQuietHours(nights, new Date('2026-11-24T15:00:00Z'))).toBe(false);
});

test('each kind of push follows its own choice; urgent breaks through quiet hours, nothing else does', () => {
  const approvalsOnly = { approvals: true, urgent: false, everything: false, quietHours: nights };
  expect(wantsPush(approvalsOnly, { kind: 'approval' }, noon)).toBe(true);
  expect(wantsPush(approvalsOnly, { kind: 'alert' }, noon)).toBe(false);
  expect(wantsPush(approvalsOnly, { kind: 'approval' }, lateNight)).toBe(false);
  // An urgent card reaches someone who takes approvals, even at night; an urgent alert needs "urgent".
  expect(wantsPush(approvalsOnly, { kind: 'approval', urgent: true }, lateNight)).toBe(true);
  expect(wantsPush(approvalsOnly, { kind: 'alert', urgent: true }, lateNight)).toBe(false);
  const urgentOnly = { approvals: false, urgent: true, everything: false };
  expect(wantsPush(urgentOnly, { kind: 'alert', urgent: true }, lateNight)).toBe(true);
  expect(wantsPush(urgentOnly, { kind: 'approval' }, noon)).toBe(false);
  expect(wantsPush(DEFAULT_NOTIFICATION_CHOICES, { kind: 'alert' }, lateNight)).toBe(true);
});

test('quiet hours that start and end together, or are not times of day, are refused', () => {
  expect(quietHours.safeParse({ start: '22:00', end: '22:00', timezone: 'UTC' }).success).toBe(false);
  expect(quietHours.safeParse({ start: '25:00', end: '07:00', timezone: 'UTC' }).success).toBe(false);
  expect(quietHours.safeParse({ start: '22:00', end: '07:00', timezone: 'Mars/Base' }).success).toBe(false);
});
