import { afterAll, beforeAll, expect, test } from 'vitest';
import { MESSAGING_RULES } from '../../shared/src/domain/policy/defaults';
import { seedInboundSms, seedPendingAction } from '../api/seed';
import { type E2E, PHONE, startE2E } from './support';

/**
 * The admin policy editor in real Chromium, on the shared workspace-files component: a broken edit shows its
 * problem by line and column and cannot be saved, "try it" evaluates the unsaved edit, and a save lands in the
 * memory repository under the admin's name. A member is turned away.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

const DESKTOP_WIDE = { width: 1440, height: 900 };

test('an admin edits the policy with inline problems, tries the edit and saves it with their name', async () => {
  for (const [name, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP_WIDE],
  ] as const) {
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto('/admin/policy');
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, 'Alex');
    await page.getByRole('button', { name: /messaging\.rules/ }).click();
    const text = page.getByLabel('Edit the file');
    await text.waitFor();
    await e.shot(page, `${name}-policy-editor`);

    const original = await text.inputValue();
    await text.fill(
      original.replace(
        'known_contact(Phone) :- contact(Phone, _, _).',
        'known_contact(Phone) :- contact(Phone, _, _',
      ),
    );
    const problem = page.locator('.wsf-issue').first();
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/Line \d+, column \d+/);
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    await problem.click();
    await e.shot(page, `${name}-policy-parse-error`);

    await text.fill(`${original}\n% ${name}: reviewed by Alex\n`);
    await page.locator('.wsf-issues').waitFor({ state: 'detached' });
    // A team member (internal contact) may be texted at any hour, so the outcome does not depend on the clock.
    await page.getByLabel(/Facts to assume/).fill('contact("+14155550111", "ct_sam", true)');
    await page.getByRole('button', { name: 'Try it' }).click();
    const result = page.locator('.policy-try-result');
    await result.waitFor();
    expect(await result.textContent()).toMatch(/Needs a person to approve/);
    await result.scrollIntoViewIfNeeded();
    await e.shot(page, `${name}-policy-try-it`);

    await page.getByLabel(/What changed/).fill(`${name} review note`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved and committed with your name.').waitFor();
    // The memory history shows the change under the admin's name.
    await page.goto('/memory?view=changes');
    const latest = page.locator('.history.memory li').first();
    await latest.waitFor();
    expect(await latest.textContent()).toContain(`${name} review note`);
    expect(await latest.textContent()).toContain('Alex Rivera');
    expect(errors).toEqual([]);
    await context.close();
  }
}, 120_000);

test('a member sees the policy screen is for admins only', async () => {
  const context = await e.newContext(PHONE);
  const page = await context.newPage();
  await page.goto('/admin/policy');
  await page.waitForURL(/\/sign-in\?next=/);
  await e.signIn(page, 'Sam Chen');
  await page.getByText('Admins only').waitFor();
  await context.close();
});

test('a policy-change card shows the diff; a member is told only an admin may approve; an admin approves', async () => {
  const { conversation } = await seedInboundSms(e.core);
  const added = '% Vendors may be texted until 22:00.';
  const card = await seedPendingAction(e.core, {
    conversationId: conversation.id,
    runId: 'r_policy',
    tool: 'propose_policy_change',
    args: {
      path: 'policy/messaging.rules',
      text: MESSAGING_RULES.replace('% The sending line', `${added}\n\n% The sending line`),
      reason: 'Sam asked that vendors can be texted until 22:00.',
    },
    summary: 'Change policy/messaging.rules: vendors until 22:00',
  });
  for (const [name, viewport, who] of [
    ['phone', PHONE, 'Sam Chen'],
    ['desktop', DESKTOP_WIDE, 'Alex'],
  ] as const) {
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    await page.goto(`/chat?id=${conversation.id}`);
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, who);
    const article = page.locator(`article[data-action-id="${card.id}"]`);
    await article.locator('.wsf-diff .add').first().waitFor();
    expect(await article.locator('.wsf-diff .add').first().textContent()).toContain(added);
    await article.scrollIntoViewIfNeeded();
    await e.shot(page, `${name}-policy-change-card`);
    const response = page.waitForResponse((r) => r.url().endsWith(`/actions/${card.id}/approve`));
    await article.getByRole('button', { name: 'Approve' }).click();
    if (who === 'Sam Chen') {
      expect((await response).status()).toBe(403);
      await article
        .getByText(/Only an admin can approve a policy change/)
        .first()
        .waitFor();
      await e.shot(page, `${name}-policy-change-refused`);
    } else {
      expect((await response).status()).toBe(200);
    }
    await context.close();
  }
}, 120_000);

test('a proposal made before the file was saved says it is stale; approving it is refused (409) with the reason', async () => {
  const { conversation } = await seedInboundSms(e.core);
  const card = await seedPendingAction(e.core, {
    conversationId: conversation.id,
    runId: 'r_policy_stale',
    tool: 'propose_policy_change',
    args: {
      path: 'policy/messaging.rules',
      text: `${MESSAGING_RULES}\n% Proposed against an older version.\n`,
      reason: 'Sam asked for it last week.',
      // Not the version saved now: an admin saved the file after this proposal was made.
      baseVersion: '0123456789abcdef',
    },
    summary: 'Change policy/messaging.rules: an older proposal',
  });
  for (const [name, viewport] of [
    ['phone', PHONE],
    ['desktop', DESKTOP_WIDE],
  ] as const) {
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    await page.goto(`/chat?id=${conversation.id}`);
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, 'Alex');
    const article = page.locator(`article[data-action-id="${card.id}"]`);
    const warning = article.locator('.policy-diff-stale');
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/was saved after this was proposed: approving it would undo/);
    await article.scrollIntoViewIfNeeded();
    await e.shot(page, `${name}-policy-change-stale`);
    const response = page.waitForResponse((r) => r.url().endsWith(`/actions/${card.id}/approve`));
    await article.getByRole('button', { name: 'Approve' }).click();
    expect((await response).status()).toBe(409);
    await article
      .getByText(/changed after this was proposed/)
      .first()
      .waitFor();
    await e.shot(page, `${name}-policy-change-stale-refused`);
    await context.close();
  }
}, 120_000);
