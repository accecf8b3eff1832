import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dynamoNotificationChoicesStore } from '../../shared/src/adapters/dynamo/notification-choices-store';
import { devUserId } from '../../shared/src/auth/dev-session';
import { newId } from '../../shared/src/ids';
import { seedInboundSms } from '../api/seed';
import { seriousA11y } from './axe';
import { DESKTOP, type E2E, PHONE, startE2E, WIDE } from './support';

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

/**
 * The inbox list requests the page sends once its socket is open. Those sent within the socket's first second
 * pass; a later one waits until the test has written its change, so whenever the write lands, only a request
 * sent after that second can show it. `quiet()`: the time to write — a request sent since the socket opened
 * has been answered and none is under way (or one is already waiting for the write).
 */
async function listRequestsAfterOpen(page: Page, openedAt: () => number) {
  let answered = 0;
  let inFlight = 0;
  let held = 0;
  let written!: () => void;
  const write = new Promise<void>((r) => {
    written = r;
  });
  const early = new Set<unknown>();
  const settled = (r: unknown) => {
    if (!early.delete(r)) return;
    inFlight--;
    answered++;
  };
  page.on('requestfinished', settled);
  page.on('requestfailed', settled);
  await page.route(
    (u) => u.pathname === '/api/conversations',
    async (route) => {
      const since = openedAt() ? Date.now() - openedAt() : -1;
      if (since >= 1_000) {
        held++;
        await write;
      } else if (since >= 0) {
        early.add(route.request());
        inFlight++;
      }
      await route.continue();
    },
  );
  return { quiet: () => (answered > 0 && inFlight === 0) || held > 0, written };
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

  test('a change whose hint missed a just-opened socket still shows: the app catches up after the socket-list window', async () => {
    const context = await e.newContext(PHONE);
    // The socket opens and no hint ever reaches it, as when every change is published to socket lists read
    // before this socket connected (publishers reuse theirs for up to a second).
    let openedAt = 0;
    await context.routeWebSocket(/\/live/, () => {
      openedAt = Date.now();
    });
    const page = await context.newPage();
    const lists = await listRequestsAfterOpen(page, () => openedAt);
    await page.goto('/');
    await page.waitForURL(/\/sign-in\?next=/);
    await e.signIn(page, 'Jo Patel');
    await page.waitForFunction(() => document.querySelector('[data-live="live"]') !== null);
    // Written once what the app asked for right after the socket opened has been answered.
    await expect.poll(() => lists.quiet()).toBe(true);
    const { conversation } = await seedInboundSms(e.core, {
      contact: { name: 'Missed Hint', phone: '+14155550179' },
      at: new Date(),
    });
    lists.written();
    await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor({ timeout: 10_000 });
    await context.close();
  }, 40_000);

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
      // On a phone the list is a screen of its own; on a desktop it is beside the conversation.
      if (viewport === PHONE) await page.getByRole('link', { name: 'Back to conversations' }).click();
      await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor();
      // The shell is precached once the worker is active and controls the page.
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await expect.poll(() => offlineKeys(page)).toEqual(expect.arrayContaining(['inbox', 'me', 'config']));
      // Chromium's own installability verdict (Lighthouse no longer has a PWA category).
      const cdp = await context.newCDPSession(page);
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      // Playwright's contexts are off-the-record profiles, which Chromium never installs from ("in-incognito"):
      // that one is about the test browser; any other (manifest, icons, service worker, scope) fails here.
      const notInstallable = installabilityErrors.map((x) => x.errorId).filter((id) => id !== 'in-incognito');
      expect(notInstallable).toEqual([]);

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
    expect(await seriousA11y(page)).toEqual([]);
    // The notification prompt after sign-in: "Not now" hides it for this person on this device.
    const prompt = page.getByRole('region', { name: 'Know when a reply waits for you' });
    await prompt.getByRole('button', { name: 'Not now' }).click();
    await page.reload();
    await top.waitFor();
    expect(await prompt.count()).toBe(0);
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

/** A conversation with only messages (no card, so nothing locks it and it opens at its end). */
async function seedChat(texts: Array<{ role: 'inbound' | 'assistant'; text: string }>, name: string) {
  const id = newId('c_');
  const t0 = Date.now() - 2 * 3600_000;
  const at = (i: number) => new Date(t0 + i * 60_000).toISOString();
  await e.core.conversations.create({
    id,
    title: `Text from ${name}`,
    source: 'sms',
    contact: { name, phone: '+14155550190', internal: false },
    preview: texts[0]?.text ?? '',
    createdAt: at(0),
    updatedAt: at(0),
    lastMessageAt: at(0),
    createdBy: 'system',
    triggerKey: `sms:+14155550190:${id}`,
    pendingCount: 0,
    readBy: {},
  });
  for (const [i, m] of texts.entries()) {
    await e.core.conversations.appendMessage({
      id: newId('m_'),
      conversationId: id,
      role: m.role,
      text: m.text,
      createdAt: at(i),
      author: m.role === 'assistant' ? { kind: 'assistant', name: 'Switchboard' } : { kind: 'contact', name },
      ...(m.role === 'inbound' ? { channel: 'sms' as const } : {}),
    });
  }
  return id;
}

const ANSWER = [
  '**Plumber booked** for 12 Oak St:',
  '',
  '- Tue 9:00 with *Ace Plumbing*',
  '- backup: Wed 14:00',
  '',
  '| unit | issue |',
  '|---|---|',
  '| 2 | leak |',
  '',
  '<img src="x" onerror="window.pwned=1"> [details](javascript:window.pwned=2) [site](https://ace.example)',
].join('\n');

describe('reading', () => {
  test('answers render as markdown without raw HTML; the last reply is never under the composer; dark mode', async () => {
    const texts = Array.from({ length: 24 }, (_, i) => ({
      role: i % 2 ? ('assistant' as const) : ('inbound' as const),
      text: i % 2 ? `Noted, step ${i}.` : `Update ${i}: the leak under the sink is still there.`,
    }));
    const id = await seedChat([...texts, { role: 'assistant', text: ANSWER }], 'Marko Down');
    for (const viewport of [PHONE, WIDE]) {
      const { page, context, errors } = await openSignedIn(`/chat?id=${id}`, 'Sam Chen', viewport);
      const last = page.locator('.timeline > li').last();
      await last.locator('.markdown strong').waitFor();
      expect(await last.locator('.markdown strong').first().textContent()).toBe('Plumber booked');
      expect(await last.locator('.markdown li').count()).toBe(2);
      expect(await last.locator('.markdown td').count()).toBe(2);
      expect(await last.textContent()).not.toContain('**');
      // No element from the HTML, no javascript: link; the https link opens outside with no referrer.
      expect(await last.locator('img').count()).toBe(0);
      expect(await last.locator('a[href^="javascript"]').count()).toBe(0);
      expect(await last.locator('a[href="https://ace.example"]').getAttribute('rel')).toContain('noreferrer');
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      // The end of the conversation sits above the composer, not under it.
      await expect
        .poll(async () => {
          const bottom = await last.evaluate((el) => el.getBoundingClientRect().bottom);
          const top = await page.locator('.composer').evaluate((el) => el.getBoundingClientRect().top);
          return bottom <= top;
        })
        .toBe(true);
      const size = viewport === PHONE ? 'phone' : 'desktop';
      await e.shot(page, `${size}-markdown-answer`);
      expect(await seriousA11y(page)).toEqual([]);
      // Dark from the system setting, then pinned light by the switch in Settings.
      await page.emulateMedia({ colorScheme: 'dark' });
      const bg = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
      expect(await bg()).toBe('rgb(14, 19, 20)');
      await e.shot(page, `${size}-dark-conversation`);
      expect(await seriousA11y(page)).toEqual([]);
      await page.goto('/settings');
      expect(await seriousA11y(page)).toEqual([]);
      await page.getByRole('radio', { name: 'Light' }).check();
      expect(await bg()).toBe('rgb(244, 246, 246)');
      await page.reload();
      await page.getByRole('radio', { name: 'Light' }).waitFor();
      expect(await bg()).toBe('rgb(244, 246, 246)');
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 60_000);
});

describe('desktop', () => {
  test('list and conversation side by side; j/k, Enter and a approve a card with no Tab at all', async () => {
    const { conversation, action } = await seedInboundSms(e.core, {
      // A known contact: the decision checks refuse a send to an unknown number (422).
      contact: { name: 'Maria Lopez', phone: '+14155550111' },
      text: 'Can you confirm the plumber for tomorrow?',
      // In the past: the seed writes its card seconds after `at`, which must be before the approval.
      at: new Date(Date.now() - 60_000),
    });
    const { page, context, errors } = await openSignedIn('/', 'Sam Chen', WIDE);
    await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor();
    expect(await page.locator('.split-list').isVisible()).toBe(true);
    const focusedId = () =>
      page.evaluate(() => document.activeElement?.getAttribute('data-conversation-id') ?? null);
    for (let i = 0; i < 60 && (await focusedId()) !== conversation.id; i++) await page.keyboard.press('j');
    expect(await focusedId()).toBe(conversation.id);
    await page.keyboard.press('k');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/chat\?id=/);
    const card = page.locator(`.split-detail article[data-action-id="${action.id}"]`);
    await card.waitFor();
    // The list stays beside it, with the open row marked.
    expect(await page.locator(`.split-list .conv-row.selected`).getAttribute('data-conversation-id')).toBe(
      conversation.id,
    );
    await e.shot(page, 'desktop-split-conversation');
    expect(await seriousA11y(page)).toEqual([]);
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard' }).waitFor();
    await e.shot(page, 'desktop-keys-help');
    expect(await seriousA11y(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    await expect
      .poll(() => card.getAttribute('data-status'), { timeout: 20_000 })
      .toMatch(/APPROVED|EXECUTING|EXECUTED/);

    // The timeline: received → drafted → approved by Sam, as a picture (the seeded run is not resumed by the
    // worker, so it ends there; "Sent" follows action.executed, covered by story.test.ts).
    await page.locator('details.menu > summary').click();
    await page.getByRole('link', { name: 'Timeline' }).click();
    const story = page.locator('.story');
    await story.locator('.story-label', { hasText: /^Approved/ }).waitFor();
    const labels = await story.locator('.story-label').allTextContents();
    expect(labels[0]).toMatch(/^Text received · Maria Lopez/);
    const order = ['Drafted for approval', 'Approved · '].map((l) =>
      labels.findIndex((x) => x.startsWith(l)),
    );
    expect(
      order.every((i, n) => i > 0 && (n === 0 || i > (order[n - 1] ?? 0))),
      labels.join(' | '),
    ).toBe(true);
    expect(labels.find((l) => l.startsWith('Approved · '))).toMatch(/Sam/);
    await e.shot(page, 'desktop-timeline');
    expect(await seriousA11y(page)).toEqual([]);

    // Done: it leaves the default inbox, and is under Done.
    await page.goto(`/chat?id=${conversation.id}`);
    await page.getByRole('button', { name: 'Mark done' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await expect.poll(() => page.locator(`[data-conversation-id="${conversation.id}"]`).count()).toBe(0);
    await page.getByRole('button', { name: 'Done', exact: true }).click();
    await page.locator(`[data-conversation-id="${conversation.id}"]`).waitFor();
    expect(errors).toEqual([]);
    await context.close();
    const phone = await openSignedIn(`/timeline?id=${conversation.id}`, 'Sam Chen', PHONE);
    await phone.page.locator('.story-label', { hasText: /^Approved/ }).waitFor();
    await e.shot(phone.page, 'phone-timeline');
    expect(await seriousA11y(phone.page)).toEqual([]);
    await phone.context.close();
  }, 60_000);
});

describe('notification choices', () => {
  test.each([
    ['phone', PHONE],
    ['desktop', WIDE],
  ])(
    'a person chooses what they are pushed and their quiet hours; the server keeps it (%s)',
    async (name, viewport) => {
      const who = name === 'phone' ? 'Jo Patel' : 'Alex Rivera';
      const { page, context, errors } = await openSignedIn('/settings', who, viewport);
      const form = page.getByRole('form', { name: 'What you are notified about' });
      await form.getByRole('checkbox', { name: /Cards waiting for approval/ }).waitFor();
      await form.getByRole('checkbox', { name: /Everything else/ }).uncheck();
      await form.getByRole('checkbox', { name: /Quiet hours/ }).check();
      await form.getByLabel('From').fill('21:30');
      await form.getByLabel('Until').fill('06:45');
      await form.getByRole('button', { name: 'Save notification choices' }).click();
      await page.getByText('Every device you use follows these choices.').waitFor();
      await form.scrollIntoViewIfNeeded();
      await e.shot(page, `${name}-settings-notifications`);
      expect(await seriousA11y(page)).toEqual([]);
      // What the sender will read: this person's record on the server, not a device setting.
      const email = `${who.split(' ')[0]?.toLowerCase()}@oakproperties.example`;
      expect(await dynamoNotificationChoicesStore(e.core.table).get(devUserId(email))).toMatchObject({
        approvals: true,
        everything: false,
        quietHours: { start: '21:30', end: '06:45' },
      });
      await page.reload();
      await expect
        .poll(() => form.getByRole('checkbox', { name: /Everything else/ }).isChecked())
        .toBe(false);
      expect(await form.getByLabel('From').inputValue()).toBe('21:30');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
