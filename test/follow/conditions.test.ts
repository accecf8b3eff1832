import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ClickUpEmulator, startClickUpEmulator } from '../../scripts/emulators/clickup';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { createClickUpTaskBoard } from '../../shared/src/adapters/clickup-http';
import { createGoogleAuth } from '../../shared/src/adapters/google/auth';
import { createGoogleCalendar } from '../../shared/src/adapters/google/google-calendar';
import type { FollowUp, FollowUpCondition } from '../../shared/src/contracts/followups';
import type { ConversationStore } from '../../shared/src/ports/conversation-store';
import {
  type ConditionDeps,
  checkFollowUpCondition,
} from '../../shared/src/use-cases/check-followup-condition';

/**
 * "If the showing isn't confirmed" and "if the task X is still open", checked at the follow-up's time through
 * the real Google Calendar and ClickUp adapters against their emulators (seeded demo data): rules mode binds
 * what the person said, which is matched to the event or task by its words; a confirmed event, a closed task,
 * or nothing matching means the condition does not hold (the send is cancelled with that reason).
 */
const TZ = 'America/New_York';
let google: GoogleEmulator;
let clickup: ClickUpEmulator;
let deps: ConditionDeps;

beforeAll(async () => {
  google = await startGoogleEmulator({});
  clickup = await startClickUpEmulator({ token: 'pk_test' });
  deps = {
    conversations: {} as ConversationStore, // not read by these two kinds
    timezone: TZ,
    calendar: createGoogleCalendar({
      auth: createGoogleAuth({ serviceAccount: google.serviceAccountJson, subject: google.mailbox }),
      timezone: TZ,
      rootUrl: `${google.url}/`,
    }),
    board: createClickUpTaskBoard({ baseUrl: clickup.apiBase, token: 'pk_test', teamId: clickup.teamId }),
  };
}, 30_000);
afterAll(async () => {
  await google?.stop();
  await clickup?.stop();
});

const followUp = (condition: FollowUpCondition): FollowUp => ({
  id: 'fu_1',
  conversationId: 'c_1',
  actionId: 'a_1',
  kind: 'text',
  to: '+14155550131',
  text: 'Hi, just checking you can still make the showing?',
  at: new Date().toISOString(),
  condition,
  status: 'scheduled',
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

test('an event whose guest has not accepted is unconfirmed; once every guest accepted, it no longer holds', async () => {
  const said = 'showing at 48 Elm Ave';
  const open = await checkFollowUpCondition(
    deps,
    followUp({ kind: 'event_unconfirmed', eventId: said, name: said }),
  );
  expect(open).toEqual({ holds: true });

  // The lead accepts in their calendar (the emulator's stored event, as Google would record the RSVP).
  const ev = google.state.events().find((e) => e.id === 'showing0elm0000001');
  for (const a of ev?.attendees ?? []) a.responseStatus = 'accepted';
  const done = await checkFollowUpCondition(
    deps,
    followUp({ kind: 'event_unconfirmed', eventId: said, name: said }),
  );
  expect(done).toMatchObject({ holds: false, why: expect.stringMatching(/is confirmed \(.+ accepted\)/) });

  // By its real id (Claude mode may bind it) the same answer; nothing matching is not a reason to send.
  const byId = await checkFollowUpCondition(
    deps,
    followUp({ kind: 'event_unconfirmed', eventId: 'showing0elm0000001' }),
  );
  expect(byId.holds).toBe(false);
  const none = await checkFollowUpCondition(
    deps,
    followUp({
      kind: 'event_unconfirmed',
      eventId: 'showing at 99 Nowhere Ln',
      name: 'showing at 99 Nowhere Ln',
    }),
  );
  expect(none).toEqual({
    holds: false,
    why: 'no calendar event matching “showing at 99 Nowhere Ln” was found',
  });
});

test('a task still open holds; closed, it does not; without ClickUp it cannot be checked and does not hold', async () => {
  const task = clickup.state.tasks().find((t) => t.name.startsWith('Fix heater'));
  expect(task).toBeDefined();
  const said = 'fix heater at 12 Oak St';
  expect(
    await checkFollowUpCondition(deps, followUp({ kind: 'task_open', taskId: said, name: said })),
  ).toEqual({
    holds: true,
  });
  await createClickUpTaskBoard({
    baseUrl: clickup.apiBase,
    token: 'pk_test',
    teamId: clickup.teamId,
  }).updateTask(task?.id as string, { status: 'complete' });
  expect(
    await checkFollowUpCondition(deps, followUp({ kind: 'task_open', taskId: said, name: said })),
  ).toMatchObject({
    holds: false,
    why: expect.stringMatching(/^the task “Fix heater/),
  });
  const { board: _board, ...noBoard } = deps;
  expect((await checkFollowUpCondition(noBoard, followUp({ kind: 'task_open', taskId: said }))).holds).toBe(
    false,
  );
});
