import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { handler as emailPoll, resetEmailPollDeps } from '../../functions/email-poll';
import { DEMO_LEADS_SOURCE } from '../../scripts/emulators/seed/google-data';
import { type E2E, PHONE, startE2E } from './support';

/**
 * Cards #18 on the phone, in Chromium: a lead card that asks the team two questions reaches an invitation
 * with one tap per question; "Redraft…" with "say Saturday 11am" puts up a new draft that proposes it; the
 * replaced cards say they were withdrawn and by whom.
 */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ TEAM_TIMEZONE: middayZone() });
  resetEmailPollDeps();
}, 180_000);
afterAll(async () => {
  resetEmailPollDeps();
  await e?.stop();
});

async function pendingCard(page: Page, not: string[]) {
  const card = page.locator(
    `article[data-status="PENDING"]${not.map((id) => `:not([data-action-id="${id}"])`).join('')}`,
  );
  await card.waitFor({ timeout: 30_000 });
  return { card, id: (await card.getAttribute('data-action-id')) ?? '' };
}

test('answer a lead card’s questions → invitation; Redraft… “say Saturday 11am” → a draft that proposes it', async () => {
  const google = e.stack.emulators?.google;
  if (!google) throw new Error('no emulators');
  const { threadId } = google.state.deliverEmail({
    from: `Zillow Rentals <${DEMO_LEADS_SOURCE}>`,
    subject: 'New lead: Cara Singh is interested in 48 Elm Ave #3',
    text: 'Cara Singh wants to see 48 Elm Ave #3.\nEmail: cara.singh@mail.example\nMove-in: July 1. Credit score (self-reported): 640. Pets: we have a rabbit.',
  });
  await emailPoll({ source: 'leads' });
  let convId = '';
  await expect
    .poll(
      async () => {
        const c = await e.core.conversations.findByTriggerKey(`email:${threadId}`);
        convId = c?.id ?? '';
        return c ? (await e.core.actions.listByConversation(c.id)).length : 0;
      },
      { timeout: 30_000 },
    )
    .toBe(1);

  const context = await e.newContext(PHONE);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`/chat?id=${convId}`);
  await page.waitForURL(/\/sign-in\?next=/);
  await e.signIn(page, 'Sam Chen');

  const hold = await pendingCard(page, []);
  const questions = hold.card.getByRole('region', { name: 'Questions for the team' });
  await questions.scrollIntoViewIfNeeded();
  expect(await questions.textContent()).toContain('Having reviewed the application, do you accept it?');
  await e.shot(page, 'phone-card-questions');
  await questions.getByRole('button', { name: 'Yes' }).first().click();

  const second = await pendingCard(page, [hold.id]);
  expect(await second.card.textContent()).toContain('Sam Chen answered the open questions');
  await second.card
    .getByRole('region', { name: 'Questions for the team' })
    .getByRole('button', { name: 'Yes' })
    .click();

  const invite = await pendingCard(page, [hold.id, second.id]);
  expect(await invite.card.locator('textarea').last().inputValue()).toMatch(/you meet our rental criteria/);
  await invite.card.scrollIntoViewIfNeeded();
  await e.shot(page, 'phone-card-invitation');
  expect(await page.locator(`article[data-action-id="${hold.id}"]`).getAttribute('data-status')).toBe(
    'SUPERSEDED',
  );

  await invite.card.getByRole('button', { name: 'Redraft…' }).click();
  await invite.card.getByLabel(/What should change/).fill('say Saturday 11am');
  await e.shot(page, 'phone-card-redraft-form');
  await invite.card.getByRole('button', { name: 'Redraft', exact: true }).click();

  const saturday = await pendingCard(page, [hold.id, second.id, invite.id]);
  expect(await saturday.card.locator('textarea').last().inputValue()).toContain(
    'Would Saturday at 11:00 AM work for you for a showing?',
  );
  expect(await saturday.card.textContent()).toContain('Changed: day: Saturday, time: 11:00 AM');
  await saturday.card.scrollIntoViewIfNeeded();
  await e.shot(page, 'phone-card-redrafted');

  // What the template cannot apply is said plainly, and the edit box is open for it.
  await saturday.card.getByRole('button', { name: 'Redraft…' }).click();
  await saturday.card.getByLabel(/What should change/).fill('mention the parking spot');
  await saturday.card.getByRole('button', { name: 'Redraft', exact: true }).click();
  const parking = await pendingCard(page, [hold.id, second.id, invite.id, saturday.id]);
  expect(await parking.card.getByRole('alert').textContent()).toContain(
    'I could not apply “mention the parking spot” by myself',
  );
  await parking.card.scrollIntoViewIfNeeded();
  await e.shot(page, 'phone-card-not-applied');
  expect(errors).toEqual([]);
  await context.close();
}, 150_000);
