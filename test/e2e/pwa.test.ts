import { readdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newId } from '../../shared/src/ids';
import { seedInboundSms, seedPendingAction, settleAction } from '../api/seed';
import { DESKTOP, type E2E, PHONE, startE2E } from './support';

/**
 * The PWA in a real Chromium against the local stack `npm start` runs. Most scenarios seed conversations
 * and cards through the stores, exactly as the agent worker writes them, so each screen state is set up
 * directly; "the whole path" and "chat" go through the real worker and the OpenPhone emulator.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

const SAM = `sam@oakproperties.example`;
const JO = `jo@oakproperties.example`;

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

const card = (page: Page, actionId: string) => page.locator(`article[data-action-id="${actionId}"]`);

describe('signing in and deep links', () => {
  test('a deep link signs in first, then opens that conversation at its card, with the input locked', async () => {
    const { conversation, action } = await seedInboundSms(e.core);
    const { page, context, errors } = await openSignedIn(`/chat?id=${conversation.id}`, 'Sam Chen');
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/chat?id=${conversation.id}`);

    const c = card(page, action.id);
    await c.waitFor();
    await expect.poll(() => c.getAttribute('data-status')).toBe('PENDING');
    expect(await c.getByRole('heading', { name: 'Text message' }).isVisible()).toBe(true);
    // To a person (cards #18): the name, the number under it.
    expect(await c.locator('.person strong').textContent()).toBe('Maria Lopez');
    expect(await c.locator('.person-address').textContent()).toBe('(415) 555-0111');
    expect(await c.locator('textarea.draft').inputValue()).toBe(action.args.text);
    // The seeded review found an issue, so its score is shown (a clean 9/10 would not be, cards #18).
    expect(await c.getByText('Plan review').isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Maria Lopez' }).isVisible()).toBe(true);
    expect(await page.getByText('Approve or deny the pending card to continue.').isVisible()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).isDisabled()).toBe(true);
    // Tool activity is there but folded.
    const tools = page.locator('details.tool-activity');
    expect(await tools.count()).toBe(1);
    expect(await tools.getAttribute('open')).toBeNull();
    await e.shot(page, 'phone-conversation-card');
    expect(errors).toEqual([]);
    await context.close();
  });

  test('a session the API rejects goes back to sign-in and returns to the same link', async () => {
    const { conversation } = await seedInboundSms(e.core);
    const context = await e.newContext();
    const page = await context.newPage();
    await page.goto('/sign-in');
    // A token that looks current to the browser but fails verification (not signed by the stack's key).
    await page.evaluate(() =>
      localStorage.setItem(
        'switchboard.devSession',
        JSON.stringify({
          token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.bm9wZQ',
          expiresAt: '2999-01-01T00:00:00Z',
        }),
      ),
    );
    await page.goto(`/chat?id=${conversation.id}`);
    await page.waitForURL(/\/sign-in\?next=/);
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/chat?id=${conversation.id}`);
    await e.signIn(page, 'Jo Patel');
    await page.waitForURL(`**/chat?id=${conversation.id}`);
    await page.locator('article[data-action-id]').waitFor();
    await context.close();
  });

  test('an account outside the team domain is refused with a clear message', async () => {
    const context = await e.newContext();
    const page = await context.newPage();
    await page.goto('/');
    await page.waitForURL(/\/sign-in/);
    await page.getByLabel('Or another email').fill('eve@elsewhere.example');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('This account cannot use Switchboard').waitFor();
    expect(await page.getByText('the elsewhere.example domain is not allowed').isVisible()).toBe(true);
    await e.shot(page, 'phone-foreign-domain');
    await context.close();
  });
});

describe('approval cards', () => {
  test('edit the SMS text in place, approve: exactly the edited text is approved and the input unlocks', async () => {
    const { conversation, action } = await seedInboundSms(e.core);
    const { page, context } = await openSignedIn(`/chat?id=${conversation.id}`, 'Sam Chen');
    const c = card(page, action.id);
    const edited = 'Hi Maria, a technician from CoolAir will come tomorrow between 9 and 11am.';
    await c.locator('textarea.draft').fill(edited);
    expect(await c.getByText('Edited — your version is what will be sent.').isVisible()).toBe(true);
    await e.shot(page, 'phone-card-edited');
    const response = page.waitForResponse((r) => r.url().endsWith(`/actions/${action.id}/approve`));
    await c.getByRole('button', { name: 'Approve edited' }).click();
    expect((await response).status()).toBe(200);
    await expect.poll(() => c.getAttribute('data-status')).not.toBe('PENDING');

    const stored = await e.core.actions.get(conversation.id, action.id);
    expect(stored?.args).toEqual({ to: '+14155550111', text: edited });
    expect(stored?.decidedBy).toBe(SAM);
    expect(stored?.edit?.from).toEqual(action.args);
    expect(await c.locator('.draft.readonly').textContent()).toBe(edited);
    expect(await c.getByText('Edited before approval').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('Approve or deny the pending card').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Message', exact: true }).isDisabled()).toBe(false);
    await context.close();
  });

  test('a sent card shows it was sent; a card that failed shows why', async () => {
    const { conversation, run } = await seedInboundSms(e.core);
    const sent = await seedPendingAction(e.core, {
      conversationId: conversation.id,
      runId: run.id,
      tool: 'send_message',
      args: { to: '+14155550111', text: 'Sent text' },
      summary: 'Text Maria Lopez: “Sent text”',
    });
    const failed = await seedPendingAction(e.core, {
      conversationId: conversation.id,
      runId: run.id,
      tool: 'send_email',
      args: { to: 'maria.lopez@mail.example', subject: 'Heater', body: 'We are on it.' },
      summary: 'Email Maria Lopez',
    });
    for (const a of [sent, failed]) {
      await e.core.actions.transition(conversation.id, a.id, ['PENDING'], 'APPROVED', {
        decidedBy: JO,
        decidedAt: new Date().toISOString(),
      });
      await e.core.conversations.adjustPending(conversation.id, -1);
    }
    await settleAction(e.core, sent, { ok: true, result: { messageId: 'msg_1' } });
    await settleAction(e.core, failed, {
      ok: false,
      error: 'Gmail refused the message: recipient address rejected.',
    });

    const { page, context } = await openSignedIn(`/chat?id=${conversation.id}`, 'Sam Chen');
    await card(page, sent.id).getByText('✓ Sent').waitFor();
    expect(await card(page, sent.id).textContent()).toContain('approved by Jo');
    const f = card(page, failed.id);
    expect(await f.getByText('Not sent.').isVisible()).toBe(true);
    expect(await f.textContent()).toContain('Gmail refused the message: recipient address rejected.');
    expect(await f.getByRole('heading', { name: 'Email' }).isVisible()).toBe(true);
    await f.scrollIntoViewIfNeeded();
    await e.shot(page, 'phone-card-failed');
    await context.close();
  });

  test('deny with a reason: the card says who denied it and why', async () => {
    const { conversation, action } = await seedInboundSms(e.core, {
      contact: { name: 'David Kim', phone: '+14155550112' },
      text: 'Water is dripping from the bathroom ceiling',
      draft: 'Hi David, we will send a plumber today.',
    });
    const { page, context } = await openSignedIn(`/chat?id=${conversation.id}`, 'Jo Patel');
    const c = card(page, action.id);
    await c.getByRole('button', { name: 'Deny' }).click();
    await c.getByLabel(/Reason/).fill('Bob is already on site, no text needed');
    await e.shot(page, 'phone-card-deny');
    await c.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => c.getAttribute('data-status')).toBe('DENIED');
    expect(await c.textContent()).toContain('Denied by Jo');
    expect(await c.textContent()).toContain('“Bob is already on site, no text needed”');
    const stored = await e.core.actions.get(conversation.id, action.id);
    expect(stored).toMatchObject({ status: 'DENIED', denyReason: 'Bob is already on site, no text needed' });
    await context.close();
  });

  test('two people approve the same card at once: one wins, the other sees it was decided', async () => {
    const { conversation, action } = await seedInboundSms(e.core, {
      contact: { name: 'Priya Nair', phone: '+14155550113' },
      text: 'Can I pay rent a week late this month?',
      draft: 'Hi Priya, yes — please pay by the 8th, no late fee this time.',
    });
    const sam = await openSignedIn(`/chat?id=${conversation.id}`, 'Sam Chen');
    const jo = await openSignedIn(`/chat?id=${conversation.id}`, 'Jo Patel', DESKTOP);
    const samCard = card(sam.page, action.id);
    const joCard = card(jo.page, action.id);
    await samCard.getByRole('button', { name: 'Approve' }).waitFor();
    await joCard.getByRole('button', { name: 'Approve' }).waitFor();

    const isApprove = (r: { url(): string }) => r.url().endsWith(`/actions/${action.id}/approve`);
    const responses = Promise.all([sam.page.waitForResponse(isApprove), jo.page.waitForResponse(isApprove)]);
    // Pressed in the page, both within a few milliseconds: a locator click waits for the button to be
    // actionable, and under load that wait let the winner's live update turn the other card first (the
    // button gone, the press never sent: seen once in a whole-suite run).
    const press = (c: typeof samCard) =>
      c.getByRole('button', { name: 'Approve' }).evaluate((b) => (b as HTMLButtonElement).click());
    await Promise.all([press(samCard), press(joCard)]);
    const [samRes, joRes] = await responses;
    expect([samRes.status(), joRes.status()].sort()).toEqual([200, 409]);
    const loser =
      samRes.status() === 409 ? { page: sam.page, card: samCard } : { page: jo.page, card: joCard };
    const winnerEmail = samRes.status() === 200 ? SAM : JO;
    const winnerName = samRes.status() === 200 ? 'Sam Chen' : 'Jo Patel';
    await loser.card.getByText(new RegExp(`^${winnerName} already approved this at \\d`)).waitFor();
    await expect.poll(() => loser.card.getAttribute('data-status')).not.toBe('PENDING');
    expect(await loser.card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect((await e.core.actions.get(conversation.id, action.id))?.decidedBy).toBe(winnerEmail);
    await e.shot(loser.page, loser.page === sam.page ? 'phone-card-lost-race' : 'desktop-card-lost-race');
    await sam.context.close();
    await jo.context.close();
  });
});

/** Waits for the worker to turn an inbound text into a pending card, as the push notification would say. */
async function cardForInboundText(from: string, text: string) {
  const op = e.stack.emulators?.openphone;
  if (!op) throw new Error('the local stack runs without emulators');
  await op.fireIncomingMessage({ from, text, scheme: 'standard' });
  const deadline = Date.now() + 25_000;
  while (Date.now() < deadline) {
    const conversation = await e.core.conversations.findByTriggerKey(`sms:${from}`);
    const pending = conversation
      ? (await e.core.actions.listByConversation(conversation.id)).find((a) => a.status === 'PENDING')
      : undefined;
    if (conversation && pending) return { conversation, action: pending, op };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no card for the text from ${from}`);
}

describe('the whole path: inbound text → worker → card → decision → send', () => {
  test('approve an edited draft: the card turns to sent and the emulator received exactly the edited text', async () => {
    const bob = '+14155550121';
    const { conversation, action, op } = await cardForInboundText(
      bob,
      'Finished at 12 Oak St, invoice follows.',
    );
    const { page, context } = await openSignedIn(`/chat?id=${conversation.id}`, 'Sam Chen');
    const c = card(page, action.id);
    const edited = 'Thanks Bob, got it. Please email the invoice to the office.';
    await c.locator('textarea.draft').fill(edited);
    await c.getByRole('button', { name: 'Approve edited' }).click();
    await expect.poll(() => c.getAttribute('data-status'), { timeout: 20_000 }).toBe('EXECUTED');
    expect(await c.getByText('✓ Sent').isVisible()).toBe(true);
    expect(op.state.sent.filter((m) => m.to.includes(bob)).map((m) => m.text)).toEqual([edited]);
    await e.shot(page, 'phone-card-sent');
    await context.close();
  }, 60_000);

  test('deny with a reason: nothing is sent and the assistant follows up with the reason', async () => {
    const tom = '+14155550131';
    const { conversation, action, op } = await cardForInboundText(
      tom,
      'Is the 2-bed on Elm Ave still available?',
    );
    const { page, context } = await openSignedIn(`/chat?id=${conversation.id}`, 'Jo Patel');
    const c = card(page, action.id);
    await c.getByRole('button', { name: 'Deny' }).click();
    await c.getByLabel(/Reason/).fill('Alex will call him today');
    await c.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => c.getAttribute('data-status')).toBe('DENIED');
    await page
      .locator('.bubble.role-assistant', { hasText: 'Alex will call him today' })
      .waitFor({ timeout: 20_000 });
    expect(op.state.sent.filter((m) => m.to.includes(tom))).toHaveLength(0);
    await e.shot(page, 'phone-denied-follow-up');
    await context.close();
  }, 60_000);
});

describe('chat', () => {
  // Needs the agent worker (rules mode) behind the local stack: it answers the chat.message event.
  test('a new chat streams the answer: the draft arrives as a card and the input locks', async () => {
    const { page, context } = await openSignedIn('/chat', 'Sam Chen');
    await page.getByText('Ask Switchboard').waitFor();
    const input = page.getByRole('textbox', { name: 'Message', exact: true });
    await input.fill('Text Maria that the plumber comes at 3');
    const chat = page.waitForResponse((r) => r.url().endsWith('/api/chat'));
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('You · sending').waitFor();
    expect((await chat).headers()['content-type']).toMatch(/text\/event-stream/);
    await page.waitForURL(/\/chat\?id=c_/, { timeout: 25_000 });
    const id = new URL(page.url()).searchParams.get('id') ?? '';
    // Once the stream ends the stored conversation replaces the live turn: the card, and the lock it causes.
    await page.getByText('Approve or deny the pending card to continue.').waitFor();
    const c = page.locator('article[data-action-id]');
    expect(await c.count()).toBe(1);
    expect(await c.getByRole('heading', { name: 'Text message' }).isVisible()).toBe(true);
    expect(await c.locator('textarea.draft').inputValue()).toMatch(/plumber/i);
    const stored = await e.core.conversations.listMessages(id);
    expect(stored[0]).toMatchObject({ role: 'user', text: 'Text Maria that the plumber comes at 3' });
    await e.shot(page, 'phone-chat-card');
    await context.close();
  }, 60_000);
});

describe('inbox, admin, settings', () => {
  test('the inbox shows trigger icons, contacts, previews, pending and unread badges', async () => {
    const email = newId('c_');
    const at = new Date().toISOString();
    await e.core.conversations.create({
      id: email,
      title: 'Question about the 2-bed on Elm Ave',
      source: 'email',
      contact: { name: 'Tom Becker', email: 'tom.becker@mail.example' },
      preview: 'Is the 2-bed on Elm Ave still available? I could view it this weekend.',
      createdAt: at,
      updatedAt: at,
      lastMessageAt: at,
      createdBy: 'system',
      pendingCount: 0,
      readBy: {},
    });
    const { conversation } = await seedInboundSms(e.core, {
      contact: { name: 'Lena Fischer', phone: '+14155550122' },
      text: 'The part for the boiler arrives Thursday.',
      draft: 'Thanks Lena, Thursday works.',
    });
    const { page, context } = await openSignedIn('/', 'Alex Rivera');
    const row = page.locator(`a[data-conversation-id="${conversation.id}"]`);
    await row.waitFor();
    expect(await row.getByText('1 to approve').isVisible()).toBe(true);
    expect(await row.getByRole('img', { name: 'Unread' }).isVisible()).toBe(true);
    expect(await row.getByRole('img', { name: 'Text message' }).count()).toBe(1);
    const emailRow = page.locator(`a[data-conversation-id="${email}"]`);
    expect(await emailRow.getByRole('img', { name: 'Email' }).count()).toBe(1);
    expect(await emailRow.textContent()).toContain('Tom Becker');
    await e.shot(page, 'phone-inbox');

    await row.click();
    await page.waitForURL(`**/chat?id=${conversation.id}`);
    await card(page, (await e.core.actions.listByConversation(conversation.id))[0]?.id ?? '').waitFor();
    await page.getByRole('link', { name: 'Back to conversations' }).click();
    await expect.poll(() => row.getByRole('img', { name: 'Unread' }).count()).toBe(0);

    const desktop = await e.newContext(DESKTOP);
    const dp = await desktop.newPage();
    await dp.goto('/');
    await e.signIn(dp, 'Alex Rivera');
    await dp.locator('a[data-conversation-id]').first().waitFor();
    await e.shot(dp, 'desktop-inbox');
    await desktop.close();
    await context.close();
  });

  test('an admin edits the system instructions and sees the history; others get no admin tab', async () => {
    const { page, context } = await openSignedIn('/admin', 'Alex Rivera', DESKTOP);
    const editor = page.getByLabel('Instructions the assistant follows in every run');
    await editor.waitFor();
    await editor.fill(
      'Sign every text as “Oak Properties”. Never promise a repair time before the vendor confirms.',
    );
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. The next run uses these instructions.').waitFor();
    await editor.fill('Sign every text as “Oak Properties”.');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.locator('.history li').count()).toBe(2);
    expect(await page.locator('.history li').first().textContent()).toContain(
      'Current · alex@oakproperties.example',
    );
    expect((await e.core.instructions.current())?.text).toBe('Sign every text as “Oak Properties”.');
    await e.shot(page, 'desktop-admin');
    await context.close();

    const member = await openSignedIn('/', 'Sam Chen');
    await member.page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await member.page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await member.page.goto('/admin');
    await member.page.getByText('Admins only').waitFor();
    await member.page.goto('/settings');
    await member.page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await e.shot(member.page, 'phone-settings');
    await member.page.getByRole('link', { name: 'What the assistant learned' }).click();
    // The memory browser opens at MEMORY.md rendered; the local stack seeds the workspace on first open.
    const guide = member.page.getByRole('article', { name: 'MEMORY.md' });
    await guide.waitFor({ timeout: 30_000 });
    expect(((await guide.textContent()) ?? '').length).toBeGreaterThan(0);
    await e.shot(member.page, 'phone-memory');
    await member.context.close();
  });

  test('the browser bundle holds no secret and no AWS SDK (SPEC §6.5)', async () => {
    const files = (await readdir(e.distDir, { recursive: true })).filter((f) =>
      /\.(js|html|css|webmanifest)$/.test(f),
    );
    expect(files.length).toBeGreaterThan(3);
    const secrets = Object.entries(e.stack.env)
      .filter(([k, v]) => /PRIVATE|SECRET|TOKEN|API_KEY|AUTH_TOKEN/.test(k) && v.length >= 8)
      .map(
        ([k, v]) =>
          [
            k,
            v
              .replace(/-----[A-Z ]+-----/g, '')
              .trim()
              .slice(0, 40),
          ] as const,
      );
    expect(secrets.map(([k]) => k)).toContain('DEV_AUTH_PRIVATE_KEY');
    for (const f of files) {
      const text = await readFile(resolve(e.distDir, f), 'utf8');
      expect(text, f).not.toMatch(/@aws-sdk|BEGIN PRIVATE KEY/);
      for (const [k, v] of secrets) expect(text.includes(v), `${k} in ${f}`).toBe(false);
    }
  });

  test('the app is installable: manifest, icons, iOS tags and a root service worker', async () => {
    const manifest = await (await fetch(`${e.stack.url}/manifest.webmanifest`)).json();
    expect(manifest).toMatchObject({ display: 'standalone', start_url: '/', scope: '/' });
    for (const icon of manifest.icons as Array<{ src: string }>) {
      const res = await fetch(`${e.stack.url}${icon.src}`);
      expect(res.headers.get('content-type')).toBe('image/png');
    }
    const { page, context } = await openSignedIn('/', 'Sam Chen');
    expect(await page.locator('meta[name="apple-mobile-web-app-capable"]').getAttribute('content')).toBe(
      'yes',
    );
    expect(await page.locator('link[rel="apple-touch-icon"]').getAttribute('href')).toBe(
      '/icons/apple-touch-icon.png',
    );
    const registrations = () =>
      page.evaluate(async () =>
        (await navigator.serviceWorker.getRegistrations()).map((r) => ({
          scope: r.scope,
          active: Boolean(r.active),
        })),
      );
    await expect
      .poll(registrations, { timeout: 10_000 })
      .toEqual([{ scope: `${e.stack.url}/`, active: true }]);
    await context.close();
  });
});
