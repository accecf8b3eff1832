import { afterAll, beforeAll, expect, test } from 'vitest';
import { newId } from '../../shared/src/ids';
import { seedPendingAction } from '../api/seed';
import { DESKTOP, type E2E, PHONE, startE2E } from './support';

/**
 * The follow issue's scheduled checks in a real Chromium on the local stack: the conversation lists them
 * (when, only if) with Cancel, and the schedule_followup card shows the same facts the approval binds.
 * (The photo thumbnail is not here yet: through the local gateway the proxied image arrived with an empty
 * body — see the issue note.)
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 240_000);
afterAll(async () => {
  await e?.stop();
});

async function openAs(path: string, viewport = PHONE) {
  const context = await e.newContext(viewport);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(path);
  await page.waitForURL(/\/sign-in\?next=/);
  await e.signIn(page, 'Sam Chen');
  return { page, context, errors };
}

test('a scheduled check is listed with when and only-if, its card shows the same, and Cancel cancels it', async () => {
  const at = new Date(Date.now() - 60_000).toISOString();
  const conversationId = newId('c_');
  await e.core.conversations.create({
    id: conversationId,
    title: 'Text Maria tomorrow at 9',
    source: 'chat',
    preview: "text Maria tomorrow at 9 if the plumber hasn't confirmed",
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: 'u_sam',
    pendingCount: 1,
    readBy: {},
  });
  await e.core.conversations.appendMessage({
    id: 'm_ask',
    conversationId,
    role: 'user',
    text: "text Maria tomorrow at 9 if the plumber hasn't confirmed",
    createdAt: at,
    author: { kind: 'user', name: 'Sam Chen', id: 'u_sam' },
    channel: 'web',
  });
  const tomorrow9 = new Date(Date.now() + 86_400_000);
  tomorrow9.setHours(9, 0, 0, 0);
  const condition = { kind: 'no_reply' as const, from: '+14155550121', name: 'Bob Martinez', since: at };
  const text =
    'Hi Maria, a quick update: we are still waiting to hear back from Bob Martinez. We are following up and will let you know as soon as we do.';
  const card = await seedPendingAction(e.core, {
    conversationId,
    runId: newId('r_'),
    tool: 'schedule_followup',
    args: {
      kind: 'text',
      to: '+14155550111',
      toName: 'Maria Lopez',
      text,
      at: tomorrow9.toISOString(),
      condition,
    },
    summary: 'Scheduled text to Maria Lopez',
  });
  await e.core.followups.create({
    id: 'fu_e2e',
    conversationId,
    actionId: card.id,
    kind: 'text',
    to: '+14155550122',
    toName: 'Lena Fischer',
    text: 'Hi Lena, are you still on for Thursday at 10?',
    at: new Date(Date.now() + 2 * 86_400_000).toISOString(),
    condition: { kind: 'no_mention', word: 'Thursday', since: at },
    status: 'scheduled',
    createdAt: at,
    updatedAt: at,
  });

  const { page, context, errors } = await openAs(`/chat?id=${conversationId}`, PHONE);
  const list = page.locator('section.followups');
  await list.waitFor();
  expect(await list.textContent()).toContain('no message mentions “Thursday”');
  const c = page.locator(`article[data-action-id="${card.id}"]`);
  await c.waitFor();
  expect(await c.textContent()).toContain('Bob Martinez has not replied since');
  await page.locator('section.followups').scrollIntoViewIfNeeded();
  await e.shot(page, 'follow-scheduled-phone');
  await c.scrollIntoViewIfNeeded();
  await e.shot(page, 'follow-scheduled-card-phone');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.locator('.followup.status-cancelled').waitFor();
  expect(await page.locator('.followup-note').textContent()).toBe('Cancelled by Sam Chen');
  await e.shot(page, 'follow-scheduled-cancelled-phone');
  expect(errors).toEqual([]);
  await context.close();

  const desk = await openAs(`/chat?id=${conversationId}`, DESKTOP);
  await desk.page.locator('section.followups').waitFor();
  await e.shot(desk.page, 'follow-scheduled-desktop');
  await desk.context.close();
}, 120_000);
