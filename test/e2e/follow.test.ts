import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mediaIdFor } from '../../shared/src/domain/media';
import { newId } from '../../shared/src/ids';
import { seedPendingAction } from '../api/seed';
import { DESKTOP, type E2E, PHONE, startE2E } from './support';

/**
 * The follow issue's scheduled checks in a real Chromium on the local stack: the conversation lists them
 * (when, only if) with Cancel, and the schedule_followup card shows the same facts the approval binds.
 * A photo text goes the whole real way (emulator webhook → worker → conversation and card → the media proxy
 * through the gateway → a blob URL the PWA's CSP must allow in img-src) and is checked as a decoded image.
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

test("a lead's nudge card says it is sent only while the lead has not moved", async () => {
  const since = new Date(Date.now() - 49 * 3600_000).toISOString();
  const conversationId = newId('c_');
  await e.core.conversations.create({
    id: conversationId,
    title: 'Tom Becker',
    source: 'sms',
    preview: 'Tom Becker: Hi! Is the 2 bedroom at 48 Elm Ave still available?',
    createdAt: since,
    updatedAt: since,
    lastMessageAt: since,
    createdBy: 'system',
    contact: { name: 'Tom Becker', phone: '+14155550177' },
    lead: { state: 'invited', updatedAt: since, property: '48 Elm Ave' },
    pendingCount: 1,
    readBy: {},
  });
  const text =
    'Hi Tom, just checking in: are you still interested in a showing of the apartment at 48 Elm Ave?';
  const card = await seedPendingAction(e.core, {
    conversationId,
    runId: newId('r_'),
    tool: 'send_message',
    args: { to: '+14155550177', text },
    summary: 'Text Tom Becker',
  });
  await e.core.actions.transition(conversationId, card.id, ['PENDING'], 'PENDING', {
    whileLead: { state: 'invited', since },
  });
  for (const [viewport, name] of [
    [PHONE, 'follow-nudge-card-phone'],
    [DESKTOP, 'follow-nudge-card-desktop'],
  ] as const) {
    const { page, context, errors } = await openAs(`/chat?id=${conversationId}`, viewport);
    const c = page.locator(`article[data-action-id="${card.id}"]`);
    await c.waitFor();
    expect(await c.textContent()).toContain('Sent only if the lead has not moved: still invited since');
    await c.scrollIntoViewIfNeeded();
    await e.shot(page, name);
    // A person says where the lead stands from the conversation's menu.
    await page.locator('summary[aria-label="More actions"]').click();
    await e.shot(page, `${name}-menu`);
    if (viewport === DESKTOP) {
      await page.getByRole('button', { name: 'Lead: not a fit' }).click();
      await page.getByText('Lead: disqualified').first().waitFor();
      expect((await e.core.conversations.get(conversationId))?.lead).toMatchObject({
        state: 'disqualified',
        property: '48 Elm Ave',
      });
    }
    expect(errors).toEqual([]);
    await context.close();
  }
}, 120_000);

/** A real, visible PNG (a blue-to-teal gradient) so the screenshot shows a photo, not a 1-pixel dot. */
function gradientPng(w = 160, h = 120): Buffer {
  const crc = (buf: Buffer) => {
    let c = ~0;
    for (const b of buf) {
      c ^= b;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      rows.set([40, 90 + (y * 100) / h, 160 + (x * 80) / w], y * (w * 3 + 1) + 1 + x * 3);
  const sig = Buffer.from('89504e470d0a1a0a', 'hex');
  return Buffer.concat([
    sig,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test('a photo text shows its thumbnail in the conversation and on the card, decoded, through the gateway', async () => {
  const png = gradientPng();
  const sent = await e.stack.emulators!.openphone.fireIncomingMessage({
    from: '+14155550111',
    text: 'The ceiling under the bathroom is stained, photo attached',
    scheme: 'standard',
    media: [{ type: 'image/png', bytes: png }],
  });
  const mediaId = mediaIdFor(`sms_${sent.eventId}`, 0);
  let conversationId = '';
  for (let i = 0; i < 300 && !conversationId; i++) {
    conversationId = (await e.core.media.get(mediaId))?.conversationId ?? '';
    if (!conversationId) await new Promise((r) => setTimeout(r, 200));
  }
  expect(conversationId).not.toBe('');

  for (const [viewport, name] of [
    [PHONE, 'phone'],
    [{ width: 1440, height: 900 }, 'desktop'],
  ] as const) {
    const { page, context, errors } = await openAs(`/chat?id=${conversationId}`, viewport);
    const thumb = page.locator('.timeline img.media-thumb').first();
    await thumb.waitFor({ timeout: 30_000 });
    // A blob the CSP blocks, or a 0-byte body, leaves an <img> with naturalWidth 0: the bug this guards.
    await expect
      .poll(() => thumb.evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : -1)), {
        timeout: 15_000,
      })
      .toBe(160);
    const onCard = page.locator('article[data-action-id] img.media-thumb').first();
    await onCard.waitFor({ timeout: 30_000 });
    await expect.poll(() => onCard.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(160);
    await thumb.scrollIntoViewIfNeeded();
    await e.shot(page, `follow-photo-${name}`);
    expect(errors).toEqual([]);
    await context.close();
  }
}, 180_000);

test('Settings → Preferences: a person sets zone, signature, event length, digest hour and properties', async () => {
  const { page, context, errors } = await openAs('/settings', PHONE);
  const form = page.locator('form.prefs-form:not(.notify-form)');
  await form.waitFor();
  await page.getByLabel(/Time zone/).fill('America/Chicago');
  await page.getByLabel(/^Signature/).fill('– Sam, Oak Properties');
  await page.getByLabel('Default event length').selectOption('45');
  await page.getByLabel('Daily digest').selectOption('7');
  await page.getByLabel(/Properties you handle/).fill('12 Oak St\n40 Elm Ave');
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect.poll(() => form.textContent()).toMatch(/Saved\. Next digest \w+ 7:00/);
  await form.scrollIntoViewIfNeeded();
  await e.shot(page, 'follow-preferences-phone');
  expect(errors).toEqual([]);
  await context.close();

  // Reopened (at desktop size): what was saved comes back.
  const desk = await openAs('/settings', { width: 1440, height: 900 });
  await desk.page.locator('form.prefs-form:not(.notify-form)').waitFor();
  expect(await desk.page.getByLabel('Daily digest').inputValue()).toBe('7');
  expect(await desk.page.getByLabel(/Properties you handle/).inputValue()).toBe('12 Oak St\n40 Elm Ave');
  await desk.page.locator('form.prefs-form:not(.notify-form)').scrollIntoViewIfNeeded();
  await e.shot(desk.page, 'follow-preferences-desktop');
  await desk.context.close();
}, 120_000);
