import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedInboundSms } from '../api/seed';
import { type E2E, PHONE, startE2E, WIDE } from './support';

/**
 * Cards #18 "a team works the queue together", in Chromium over the local stack's live socket: Sam (phone)
 * and Jo (desktop) open the same waiting card and each sees the other viewing; Jo says "I'm on it" and Sam
 * sees it at once, still able to act (and free again when Jo releases it); Sam edits the draft while Jo approves, so Sam is told who approved
 * and when, and can copy the edit that was not sent.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

async function open(path: string, who: string, viewport: typeof PHONE) {
  const context = await e.newContext(viewport);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  await page.goto(path);
  await page.waitForURL(/\/sign-in\?next=/);
  await e.signIn(page, who);
  await page.waitForFunction(() => document.querySelector('[data-live="live"]') !== null);
  return { page, context };
}

const card = (page: Page, actionId: string) => page.locator(`article[data-action-id="${actionId}"]`);

test('viewing each other, "I’m on it", and the edit of the one who lost the race kept to copy', async () => {
  const { conversation, action } = await seedInboundSms(e.core, {
    contact: { name: 'Priya Nair', phone: '+14155550113' },
    text: 'The hallway light on the 2nd floor is out again.',
    draft: 'Hi Priya, thanks — we will replace it this week.',
  });
  const path = `/chat?id=${conversation.id}`;
  const sam = await open(path, 'Sam Chen', PHONE);
  const jo = await open(path, 'Jo Patel', WIDE);
  const samCard = card(sam.page, action.id);
  const joCard = card(jo.page, action.id);

  // Presence: each sees the other (the later one learns of the earlier one from its answer).
  await samCard.getByText('Jo Patel is viewing').waitFor();
  await joCard.getByText('Sam Chen is viewing').waitFor();

  // Jo takes it; Sam sees it live and keeps every button.
  await joCard.getByRole('button', { name: 'I’m on it' }).click();
  await joCard.getByText('You are on it').waitFor();
  await samCard.getByText('Jo Patel is on it').waitFor();
  expect(await samCard.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
  const stored = await e.core.actions.get(conversation.id, action.id);
  expect(stored?.claim).toMatchObject({ name: 'Jo Patel' });
  expect((await e.core.conversations.get(conversation.id))?.claimedBy).toBe(stored?.claim?.by);
  await e.shot(sam.page, 'phone-card-jo-on-it');
  await e.shot(jo.page, 'desktop-card-claimed');

  // Jo tapped it by mistake: "Release" gives it back, and Sam sees it free again at once.
  await joCard.getByRole('button', { name: 'Release' }).click();
  await joCard.getByRole('button', { name: 'I’m on it' }).waitFor();
  await expect.poll(() => samCard.getByText('Jo Patel is on it').count()).toBe(0);
  expect((await e.core.actions.get(conversation.id, action.id))?.claim).toBeUndefined();
  expect((await e.core.conversations.get(conversation.id))?.claimedBy).toBeUndefined();

  // Sam edits; Jo approves first. Sam is told by name and time, and can copy the edit.
  const mine = 'Hi Priya, thanks for telling us — an electrician comes Thursday morning.';
  await samCard.getByLabel(/Message/).fill(mine);
  await joCard.getByRole('button', { name: 'Approve' }).click();
  await samCard.getByText(/^Jo Patel already approved this at \d.*Your edit was not used/).waitFor();
  await samCard.getByRole('button', { name: 'Copy my edit' }).click();
  await samCard.getByRole('button', { name: 'Copied' }).waitFor();
  expect(await sam.page.evaluate(() => navigator.clipboard.readText())).toBe(mine);
  await e.shot(sam.page, 'phone-card-lost-edit');

  // A decided card shows no one viewing and no claim button.
  expect(await joCard.getByText(/is viewing|I’m on it/).count()).toBe(0);
  await sam.context.close();
  await jo.context.close();
});

test('a task card says which list, for whom and when it is due, and "Created" once approved', async () => {
  const { page, context } = await open('/chat', 'Sam Chen', PHONE);
  await page.getByText('Ask Switchboard').waitFor();
  await page
    .getByRole('textbox', { name: 'Message', exact: true })
    .fill('Create a task to fix the heater at 12 Oak St for Jo by 2026-12-04');
  await page.getByRole('button', { name: 'Send' }).click();
  const c = page.locator('article[data-action-id]');
  await c.getByRole('heading', { name: 'New task' }).waitFor({ timeout: 25_000 });
  const facts = await c.locator('dl.approval-args').innerText();
  expect(facts).toMatch(/List\s+Maintenance/);
  expect(facts).toMatch(/Assignee\s+Jo Patel/);
  expect(facts).toMatch(/Due\s+Fri,? (4 Dec|Dec 4)/);
  await e.shot(page, 'phone-task-card');
  await c.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(() => c.getAttribute('data-status'), { timeout: 20_000 }).toBe('EXECUTED');
  await c.getByText(/✓ Created/).waitFor();
  const clickup = e.stack.emulators?.clickup;
  const made = clickup?.state.tasks().find((t) => t.name === 'fix the heater at 12 Oak St');
  expect(made?.assignees.length).toBe(1);
  await e.shot(page, 'phone-task-created');
  await context.close();
}, 60_000);
