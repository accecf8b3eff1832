import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AnthropicEmulator, startAnthropicEmulator, turn } from '../../scripts/emulators/anthropic';
import { seedInboundSms } from '../api/seed';
import { type E2E, PHONE, startE2E, WIDE } from './support';

/**
 * Issue 19 "done when": a slow fake-Claude answer streams. Claude mode on the local stack against the fake
 * Messages API writing slowly; in Chromium the answer is seen part-written before it is whole, and the
 * stored answer that replaces the live turn says exactly what was streamed.
 */
const ANSWER =
  'Here is where things stand at 12 Oak St: the plumber comes Thursday at 3, the lease renewal for unit 4 ' +
  'is out for signature, and the rent for November has been paid in full.';

let e: E2E;
let claude: AnthropicEmulator;
beforeAll(async () => {
  claude = await startAnthropicEmulator({ apiKey: 'local-fake-key', defaultReply: turn.text(ANSWER) });
  e = await startE2E({ ANTHROPIC_API_KEY: 'local-fake-key', ANTHROPIC_BASE_URL: claude.url });
}, 180_000);
afterAll(async () => {
  await e?.stop();
  await claude?.stop();
});

test.each([
  ['phone', PHONE],
  ['desktop', WIDE],
])(
  'a slow answer streams into the open conversation (%s)',
  async (name, viewport) => {
    claude.writeSlowly(60);
    const context = await e.newContext(viewport);
    await context.addInitScript(countShown, ANSWER);
    const page = await context.newPage();
    try {
      await page.goto('/chat');
      await page.waitForURL(/\/sign-in\?next=/);
      await e.signIn(page, 'Sam Chen');
      const input = page.getByRole('textbox', { name: 'Message', exact: true });
      await input.fill('How are things at 12 Oak St?');
      await page.getByRole('button', { name: 'Send' }).click();
      // Part of the answer is on screen while the model is still writing the rest.
      const partial = await page.waitForFunction(
        (short) => {
          // The live turn's answer bubble as the page shows it now (empty until text arrives).
          const t = document.querySelector('.timeline.live .role-assistant')?.textContent?.trim() ?? '';
          return t.length > 0 && t.length < short ? t : false;
        },
        ANSWER.length - 40,
        { timeout: 30_000, polling: 'raf' },
      );
      const seen = String(await partial.jsonValue());
      expect(ANSWER.startsWith(seen.slice(0, 20))).toBe(true);
      await e.shot(page, `${name}-chat-streaming`);
      // Then the whole answer, and the stored conversation (what a reload shows) holds exactly it.
      await page.getByText(ANSWER).waitFor({ timeout: 30_000 });
      await page.waitForURL(/\/chat\?id=c_/, { timeout: 30_000 });
      const id = new URL(page.url()).searchParams.get('id') ?? '';
      await expect
        .poll(async () => (await e.core.conversations.listMessages(id)).map((m) => m.text))
        .toEqual(['How are things at 12 Oak St?', ANSWER]);
      // The live turn has folded back into the stored view: at no moment did the page hold the answer twice (a
      // MutationObserver sees every commit, even one the next effect undoes before a locator could look), nor
      // drop it (a desktop pane remounted for the new conversation lost its live turn until the stored one came).
      await page.locator('.timeline.live').waitFor({ state: 'detached' });
      await page.getByText(ANSWER).waitFor();
      expect(await page.evaluate(() => (window as unknown as Shown).__answerShown)).toEqual({
        now: 1,
        most: 1,
        blinked: false,
      });
      await e.shot(page, `${name}-chat-folded`);
      await page.reload();
      await page.getByText(ANSWER).waitFor();
      await e.shot(page, `${name}-chat-streamed`);
      // A second turn in the now stored conversation (no navigation: the stored view reloads in place) folds
      // back the same way: the new answer beside the first, never a third copy.
      await input.fill('And at 12 Oak St tomorrow?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.timeline.live').waitFor();
      await page.locator('.timeline.live').waitFor({ state: 'detached', timeout: 30_000 });
      await expect.poll(() => page.evaluate(() => (window as unknown as Shown).__answerShown.now)).toBe(2);
      expect(await page.evaluate(() => (window as unknown as Shown).__answerShown)).toEqual({
        now: 2,
        most: 2,
        blinked: false,
      });
      await e.shot(page, `${name}-chat-second-turn`);
    } finally {
      claude.writeSlowly(0);
      await context.close();
    }
  },
  90_000,
);

type Shown = { __answerShown: { now: number; most: number; blinked: boolean } };

/**
 * In the page: how many elements show exactly `answer`, now and at most, and whether it ever went off screen
 * again once shown (`blinked`), checked after every DOM change.
 */
function countShown(answer: string) {
  const w = window as unknown as Shown;
  w.__answerShown = { now: 0, most: 0, blinked: false };
  const count = () => {
    let n = 0;
    for (const p of document.querySelectorAll('p')) if (p.textContent?.trim() === answer) n++;
    const was = w.__answerShown;
    w.__answerShown = { now: n, most: Math.max(n, was.most), blinked: was.blinked || n < was.now };
  };
  new MutationObserver(count).observe(document, { childList: true, subtree: true, characterData: true });
}

/**
 * A new chat's turn ends after the person has left its screen (phone: back to the inbox; desktop: another
 * conversation picked in the list). Where they went is where they stay: the finished turn's conversation
 * simply appears in the list, unread, instead of pulling them to it.
 */
test.each([
  ['phone', PHONE],
  ['desktop', WIDE],
])(
  'leaving a new chat while its answer streams leaves the person where they went (%s)',
  async (name, viewport) => {
    const other = await seedInboundSms(e.core, {
      contact: { name: `Olive Park ${name}`, phone: name === 'phone' ? '+14155550161' : '+14155550162' },
      text: 'Is the pool open this weekend?',
    });
    // Slow enough that the person leaves well before the answer is whole.
    claude.writeSlowly(150);
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    try {
      await page.goto('/chat');
      await page.waitForURL(/\/sign-in\?next=/);
      await e.signIn(page, 'Sam Chen');
      const question = `Leaving before the answer (${name})`;
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill(question);
      await page.getByRole('button', { name: 'Send' }).click();
      // The answer is being written, and the person goes elsewhere.
      await page.waitForFunction(
        () => (document.querySelector('.timeline.live .role-assistant')?.textContent?.trim() ?? '') !== '',
        undefined,
        { timeout: 30_000, polling: 'raf' },
      );
      if (name === 'phone') {
        await page.getByRole('link', { name: 'Back to conversations' }).click();
        await expect.poll(() => new URL(page.url()).pathname).toBe('/');
      } else {
        await page.locator(`[data-conversation-id="${other.conversation.id}"]`).click();
        await expect.poll(() => new URL(page.url()).searchParams.get('id')).toBe(other.conversation.id);
      }
      const where = page.url();
      // The turn still ends on the server (promptly: not by the worker's backstop minutes later), and its
      // conversation shows up in the list, unread.
      const row = page.locator('.conv-row', { hasText: question });
      await row.waitFor({ timeout: 15_000 });
      const id = (await row.getAttribute('data-conversation-id')) ?? '';
      await expect
        .poll(async () => (await e.core.conversations.listMessages(id)).map((m) => m.text), {
          timeout: 20_000,
        })
        .toEqual([question, ANSWER]);
      await row.locator('.dot-unread').waitFor();
      expect(page.url()).toBe(where);
      if (name === 'desktop') await page.getByText('Is the pool open this weekend?').first().waitFor();
      await e.shot(page, `${name}-chat-left-before-answer`);
    } finally {
      claude.writeSlowly(0);
      await context.close();
    }
  },
  90_000,
);
