import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedInboundSms } from '../api/seed';
import { type E2E, PHONE, startE2E } from './support';

/** A FAILED card in the PWA: the reason is on the card, and Retry puts a new card up for approval. */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

const REASON =
  'Stopped: gave up after 5 attempts: OpenPhone failed (500) on send message. It may or may not have gone out — check before retrying.';

test('a failed card shows why and a Retry button; Retry adds a new card that waits for approval', async () => {
  const { conversation, action } = await seedInboundSms(e.core);
  const at = new Date().toISOString();
  await e.core.actions.transition(conversation.id, action.id, ['PENDING'], 'APPROVED', {
    decidedBy: 'jo@oakproperties.example',
    decidedAt: at,
    updatedAt: at,
  });
  await e.core.conversations.adjustPending(conversation.id, -1);
  await e.core.actions.transition(conversation.id, action.id, ['APPROVED'], 'FAILED', {
    error: REASON,
    updatedAt: at,
  });

  for (const [name, viewport] of [
    ['phone', PHONE],
    ['desktop', { width: 1440, height: 900 }],
  ] as const) {
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`/chat?id=${conversation.id}`);
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, 'Sam Chen');
    const failed = page.locator(`article[data-action-id="${action.id}"]`);
    await failed.waitFor();
    expect(await failed.getAttribute('data-status')).toBe('FAILED');
    expect(await failed.textContent()).toContain('may or may not have gone out');
    await failed.scrollIntoViewIfNeeded();
    await e.shot(page, `${name}-failed-card-retry`);

    if (name === 'desktop') {
      const response = page.waitForResponse((r) => r.url().endsWith(`/actions/${action.id}/retry`));
      await failed.getByRole('button', { name: 'Retry' }).click();
      expect((await response).status()).toBe(201);
      const fresh = page.locator('article[data-status="PENDING"]');
      await fresh.waitFor();
      expect(await fresh.getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);
      await expect.poll(() => failed.textContent()).toContain('Retried as a new card below.');
      await fresh.scrollIntoViewIfNeeded();
      await e.shot(page, 'desktop-retried-card');
      const stored = await e.core.actions.get(conversation.id, action.id);
      expect(stored?.retriedAs).toBeDefined();
      expect((await e.core.actions.get(conversation.id, stored?.retriedAs ?? ''))?.status).toBe('PENDING');
    }
    expect(errors).toEqual([]);
    await context.close();
  }
}, 120_000);
