import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { buildPwa } from '../build/pwa';
import { type AnthropicEmulator, startAnthropicEmulator, turn } from '../emulators/anthropic';
import { startLocalStack } from '../local/stack';
import { type BenchRow, percentile } from './types';

/** Between two streamed events of the fake Claude: ~24 characters every 150 ms, a slow writer. */
const WRITE_MS = 150;
const ROUNDS = 5;
const ANSWER =
  'Here is where things stand at 12 Oak St: the plumber comes Thursday at 3, the lease renewal for unit 4 ' +
  'is out for signature, and the rent for November has been paid in full. Nothing else is waiting on you.';

/**
 * Issue 19: how soon a person sees the answer after the model starts writing it — from the fake Claude's first
 * token (`firstTextAt`, when the emulator writes the first text_delta) to the first answer text on screen in
 * Chromium (target ≤ 1 s), on the local stack with the fake Claude writing slowly. Same-run baseline: the same
 * turn run by the worker, followed by the API as before (its answer reaches the client whole, after the run),
 * against the same slow model (an unstreamed answer takes as long as the stream would have, and its first
 * token is when the stream would have sent it); both paths also measured at the HTTP client, interleaved.
 */
export async function run(): Promise<BenchRow[]> {
  const claude = await startAnthropicEmulator({ apiKey: 'local-fake-key', defaultReply: turn.text(ANSWER) });
  const dist = mkdtempSync(join(tmpdir(), 'sb-bench-pwa-'));
  await buildPwa(dist);
  const stack = await startLocalStack({
    port: 0,
    schedules: false,
    emulators: false,
    staticRoot: dist,
    env: { ANTHROPIC_API_KEY: 'local-fake-key', ANTHROPIC_BASE_URL: claude.url },
  });
  try {
    claude.writeSlowly(WRITE_MS);
    const token = await devToken(stack.url);
    // The buffered API's app (no inlineChat): the worker runs the turn, the stream follows what it stores.
    const { app: buffered } = await import('../../functions/api');
    const http = { stream: [] as number[], worker: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      http.stream.push(await firstText(claude, () => postChat(fetch, `${stack.url}/api/chat`, token)));
      http.worker.push(
        await firstText(claude, () =>
          postChat((u, init) => Promise.resolve(buffered.request(u, init)), '/api/chat', token),
        ),
      );
    }
    const visible = await inChromium(stack.url, claude);
    const worker = percentile(http.worker, 50);
    return [
      {
        name: 'first token → first answer text visible in Chromium (streamed) p50',
        value: percentile(visible, 50),
        unit: 'ms',
        baseline: worker,
        ratio: percentile(visible, 50) / worker,
        target: `≤ 1000 ms; baseline: the worker runs the turn (answer whole after the run), at the client`,
      },
      {
        name: 'first token → visible in Chromium, worst of the rounds',
        value: Math.max(...visible),
        unit: 'ms',
      },
      {
        name: 'first token → first text at the HTTP client: streamed p50',
        value: percentile(http.stream, 50),
        unit: 'ms',
        baseline: worker,
        ratio: percentile(http.stream, 50) / worker,
        target: `fake Claude writes ${ANSWER.length} chars, 24 per event, ${WRITE_MS} ms apart`,
      },
      {
        name: 'first token → first text at the HTTP client: worker (baseline) p50',
        value: worker,
        unit: 'ms',
      },
    ];
  } finally {
    claude.writeSlowly(0);
    await stack.stop();
    await claude.stop();
    rmSync(dist, { recursive: true, force: true });
  }
}

type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** A chat turn, read until the first text-delta part: when that arrived (ms since epoch). */
async function postChat(f: Fetch, url: string, token: string): Promise<number> {
  const res = await f(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ text: 'How are things at 12 Oak St?' }),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!at && decoder.decode(value).includes('"type":"text-delta"')) at = Date.now();
  }
  if (!at) throw new Error('no answer text in the chat stream');
  return at;
}

/** Time from the model's first token of the turn's answer to `seen()` (which resolves with a Date.now()). */
async function firstText(claude: AnthropicEmulator, seen: () => Promise<number>): Promise<number> {
  const before = claude.requests.length;
  const at = await seen();
  const call = claude.requests.slice(before).find((r) => r.firstTextAt !== undefined);
  if (!call?.firstTextAt) throw new Error('the fake Claude wrote no text for this turn');
  return at - call.firstTextAt;
}

async function inChromium(url: string, claude: AnthropicEmulator): Promise<number[]> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: url });
    const page = await context.newPage();
    await page.goto('/chat');
    await page.waitForURL(/\/sign-in\?next=/);
    await page.getByRole('button', { name: /Sam Chen/ }).click();
    await page.waitForURL((u) => u.pathname !== '/sign-in');
    const out: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i > 0) await page.goto('/chat');
      out.push(await firstText(claude, () => askAndWatch(page)));
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** Sends the question and waits for the live answer bubble's first text; when it appeared (page's Date.now()). */
async function askAndWatch(page: Page): Promise<number> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('How are things at 12 Oak St?');
  await page.getByRole('button', { name: 'Send' }).click();
  const seen = await page.waitForFunction(
    () => {
      const t = document.querySelector('.timeline.live .role-assistant')?.textContent?.trim();
      return t ? Date.now() : false;
    },
    undefined,
    { timeout: 30_000, polling: 'raf' },
  );
  const at = Number(await seen.jsonValue());
  // Let the turn finish before the next round: the ended stream moves the page to the stored conversation.
  await page.waitForURL(/\/chat\?id=c_/, { timeout: 30_000 });
  return at;
}

async function devToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  return ((await res.json()) as { token: string }).token;
}
