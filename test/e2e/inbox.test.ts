import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedInboundSms } from '../api/seed';
import { DESKTOP, type E2E, PHONE, startE2E } from './support';

/**
 * The inbox of issue 19 in a real Chromium against the local stack: live updates over the gateway's
 * WebSocket. Seeding goes through the composed stores, which publish on the live channel exactly as the
 * worker's do.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

async function openSignedIn(path: string, who: string, viewport = PHONE) {
  const context = await e.newContext(viewport);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(path);
  await page.waitForURL(/\/sign-in\?next=/);
  await e.signIn(page, who);
  return { page, context, errors };
}

/** Requests the page made to a path, counted from now. */
function countRequests(page: Page, path: string) {
  let n = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === path) n++;
  });
  return () => n;
}

describe('live updates', () => {
  test('a new card appears in the open inbox without a reload, with a toast, and the list keeps its scroll', async () => {
    const base = Date.now() - 3 * 3600_000;
    for (let i = 0; i < 14; i++) {
      await seedInboundSms(e.core, {
        contact: { name: `Tenant ${i}`, phone: `+1415555${String(1000 + i)}` },
        at: new Date(base + i * 60_000),
      });
    }
    const { page, context, errors } = await openSignedIn('/', 'Sam Chen');
    await page.locator('.conv-row').nth(10).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-live="live"]') !== null);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
      window.scrollTo(0, 300);
    });
    const listCalls = countRequests(page, '/api/conversations');
    // The row the person is looking at, and where it is on screen.
    const anchor = await page.evaluate(() => {
      const el = document.elementFromPoint(200, 300)?.closest('[data-conversation-id]');
      return { id: el?.getAttribute('data-conversation-id'), top: el?.getBoundingClientRect().top };
    });
    expect(anchor.id).toBeTruthy();

    const { conversation } = await seedInboundSms(e.core, {
      contact: { name: 'Dana Whitfield', phone: '+14155550177' },
      text: 'The front door lock is jammed, I cannot get in',
      at: new Date(),
    });
    const row = page.locator(`[data-conversation-id="${conversation.id}"]`);
    await row.waitFor({ timeout: 5_000 });
    const toast = page.locator('.toast');
    await toast.waitFor();
    await expect.poll(() => toast.textContent()).toContain('Dana Whitfield: waiting for approval');
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    // The row above it grew the list, and what the person was reading stayed where it was.
    const after = await page
      .locator(`[data-conversation-id="${anchor.id}"]`)
      .evaluate((el) => el.getBoundingClientRect().top);
    expect(Math.abs(after - (anchor.top ?? 0))).toBeLessThan(2);
    // Refetched on the hints, not on a 10-second poll (the socket is up, so polling is off).
    expect(listCalls()).toBeGreaterThan(0);
    await e.shot(page, 'phone-inbox-live-toast');
    await toast.getByRole('link', { name: 'Open' }).click();
    await page.waitForURL(/\/chat\?id=/);
    expect(errors).toEqual([]);
    await context.close();
  });

  test('with the socket refused the inbox still updates, by polling', async () => {
    const context = await e.newContext(DESKTOP);
    // Every socket the page opens is closed at once (as behind a proxy that refuses upgrades).
    await context.routeWebSocket(/\/live/, (ws) => ws.close());
    const page = await context.newPage();
    await page.goto('/');
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, 'Jo Patel');
    await page.waitForFunction(() => document.querySelector('[data-live="down"]') !== null);
    const { conversation } = await seedInboundSms(e.core, {
      contact: { name: 'Polled Person', phone: '+14155550178' },
      at: new Date(),
    });
    await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor({ timeout: 15_000 });
    await context.close();
  }, 30_000);
});

/** The keys the app kept in IndexedDB (idb-keyval's store `switchboard-offline` / `last-seen`). */
function offlineKeys(page: Page) {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        const open = indexedDB.open('switchboard-offline');
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('last-seen')) return resolve([]);
          const req = db.transaction('last-seen').objectStore('last-seen').getAllKeys();
          req.onsuccess = () => resolve(req.result.map(String));
        };
        open.onerror = () => resolve([]);
      }),
  );
}

describe('offline', () => {
  test('a cold open without network shows the app, an offline notice and the last inbox; sign-out clears it', async () => {
    const { conversation } = await seedInboundSms(e.core, {
      contact: { name: 'Offline Olivia', phone: '+14155550179' },
      at: new Date(),
    });
    for (const viewport of [PHONE, DESKTOP]) {
      const { page, context, errors } = await openSignedIn(
        `/chat?id=${conversation.id}`,
        'Sam Chen',
        viewport,
      );
      await page.locator('article[data-action-id]').first().waitFor();
      await page.getByRole('link', { name: 'Back to conversations' }).click();
      await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor();
      // The shell is precached once the worker is active and controls the page.
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await expect.poll(() => offlineKeys(page)).toEqual(expect.arrayContaining(['inbox', 'me', 'config']));

      await context.setOffline(true);
      await page.reload();
      await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor();
      const notice = page.locator('.offline-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toContain("You're offline.");
      await e.shot(page, `${viewport === PHONE ? 'phone' : 'desktop'}-offline-inbox`);
      // The last conversation opened is there too.
      await page.locator(`[data-conversation-id="${conversation.id}"]`).click();
      await page.getByRole('heading', { name: 'Offline Olivia' }).waitFor();

      await context.setOffline(false);
      await page.goto('/settings');
      await page.getByRole('button', { name: /sign out/i }).click();
      await page.waitForURL(/\/sign-in/);
      await expect.poll(() => offlineKeys(page)).toEqual(['config']);
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 90_000);
});

describe('inbox order, markers, filters, search', () => {
  test('a flood text appears at the top of the open inbox with its urgent marker, without a reload', async () => {
    await seedInboundSms(e.core, {
      contact: { name: 'Routine Rita', phone: '+14155550181' },
      text: 'The kitchen sink drips a little',
      at: new Date(),
    });
    const { page, context, errors } = await openSignedIn('/', 'Sam Chen');
    await page.waitForFunction(() => document.querySelector('[data-live="live"]') !== null);
    await e.stack.emulators!.openphone.fireIncomingMessage({
      from: '+14155550182',
      text: 'Water is flooding from the ceiling in unit 4!',
      scheme: 'standard',
    });
    const top = page.locator('.conv-row').first();
    await expect.poll(() => top.locator('.marker-urgent').count(), { timeout: 30_000 }).toBe(1);
    expect(await top.textContent()).toContain('Water is flooding from the ceiling');
    expect(await top.locator('.marker-urgent').textContent()).toMatch(/^Urgent · /);
    await e.shot(page, 'phone-inbox-urgent');
    // The Urgent filter shows it; Needs approval shows only conversations with a card waiting.
    await page.getByRole('button', { name: 'Urgent', exact: true }).click();
    await expect.poll(() => page.locator('.conv-row').count()).toBeGreaterThan(0);
    for (const row of await page.locator('.conv-row').all())
      expect(await row.locator('.marker-urgent').count()).toBe(1);
    await page.getByRole('button', { name: 'Needs approval' }).click();
    await expect.poll(() => page.locator('.conv-row .badge-pending').count()).toBeGreaterThan(0);
    expect(await page.locator('.conv-row').count()).toBe(
      await page.locator('.conv-row .badge-pending').count(),
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test("search finds a tenant's older text and highlights the words", async () => {
    await seedInboundSms(e.core, {
      contact: { name: 'Bartholomew Quince', phone: '+14155550183' },
      text: 'The dishwasher in 7 Elm St leaks onto the parquet',
      at: new Date(Date.now() - 20 * 86_400_000),
    });
    const { page, context } = await openSignedIn('/', 'Jo Patel', DESKTOP);
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('parquet dishwasher');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hit = page.locator('.search-hit').first();
    await hit.waitFor();
    expect(await hit.textContent()).toContain('Bartholomew Quince');
    expect(await hit.locator('mark').allTextContents()).toEqual(expect.arrayContaining(['parquet']));
    await e.shot(page, 'desktop-inbox-search');
    await context.close();
  });
});
