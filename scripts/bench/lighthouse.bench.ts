import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import lighthouse from 'lighthouse';
import { type BrowserContext, chromium } from 'playwright-core';
import { getCore } from '../../shared/src/composition/core';
import { newId } from '../../shared/src/ids';
import { buildPwa } from '../build/pwa';
import { startLocalStack } from '../local/stack';
import type { BenchRow } from './types';

const CHROMIUM = '/usr/bin/chromium';
const CATEGORIES = ['accessibility', 'best-practices'] as const;

/**
 * Issue 19: Lighthouse's accessibility and best-practices scores (target ≥ 95 each) for the inbox and a
 * conversation with a card, signed in, on the phone form factor, against Debian's Chromium — never a
 * downloaded browser. The same-run baseline is the public sign-in screen of the same build (no session).
 * Lighthouse no longer has a PWA category; installability is Chromium's own verdict, in the offline e2e.
 */
export async function run(): Promise<BenchRow[]> {
  const dist = mkdtempSync(join(tmpdir(), 'bench-lh-dist-'));
  const profile = mkdtempSync(join(tmpdir(), 'bench-lh-profile-'));
  await buildPwa(dist, 'error');
  const stack = await startLocalStack({ port: 0, schedules: false, staticRoot: dist });
  let context: BrowserContext | undefined;
  try {
    const conversationId = await seedConversation();
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      // A port as well as Playwright's pipe, so Lighthouse drives the same browser (and its signed-in storage).
      args: ['--no-sandbox', '--disable-gpu', '--remote-debugging-port=0', '--disable-background-networking'],
    });
    const port = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
    const signIn = await audit(port, `${stack.url}/sign-in`);
    await signInAs(context, stack.url, 'Sam Chen');
    const inbox = await audit(port, `${stack.url}/`);
    const chat = await audit(port, `${stack.url}/chat?id=${encodeURIComponent(conversationId)}`);
    return [...rows('inbox', inbox, signIn), ...rows('conversation with a card', chat, signIn)];
  } finally {
    await context?.close().catch(() => {});
    await stack.stop();
    rmSync(profile, { recursive: true, force: true });
    rmSync(dist, { recursive: true, force: true });
  }
}

type Scores = Record<(typeof CATEGORIES)[number], number> & { failing: string[] };

function rows(page: string, s: Scores, base: Scores): BenchRow[] {
  return CATEGORIES.map((c) => ({
    name: `Lighthouse ${c}: ${page}${s.failing.length && c === 'accessibility' ? ` (failing: ${s.failing.join(', ')})` : ''}`,
    value: s[c],
    unit: 'score',
    baseline: base[c],
    ratio: s[c] / base[c],
    target: '≥ 95; baseline: the sign-in screen, same build',
  }));
}

/** One Lighthouse run on a page of the running browser; storage is kept (the session lives there). */
async function audit(port: number, url: string): Promise<Scores> {
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: [...CATEGORIES],
    disableStorageReset: true,
    formFactor: 'mobile',
  });
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { categories, audits } = result.lhr;
  // Set LIGHTHOUSE_REPORTS=<dir> to keep each full report (what failed, and where) beside the figures.
  if (process.env.LIGHTHOUSE_REPORTS)
    writeFileSync(
      join(process.env.LIGHTHOUSE_REPORTS, `${new URL(url).pathname.replace(/\W+/g, '_') || 'root'}.json`),
      JSON.stringify(result.lhr, null, 1),
    );
  const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
  const failing = Object.values(audits)
    .filter((a) => a.score === 0 && a.scoreDisplayMode === 'binary')
    .map((a) => a.id);
  return { accessibility: score('accessibility'), 'best-practices': score('best-practices'), failing };
}

async function signInAs(context: BrowserContext, url: string, name: string) {
  const page = await context.newPage();
  await page.goto(`${url}/`);
  await page.waitForURL(/\/sign-in/);
  await page.getByRole('button', { name: new RegExp(name) }).click();
  await page.waitForURL((u) => u.pathname !== '/sign-in');
  // The one-time notifications prompt is answered, as a person who has used the app would have.
  const notNow = page.getByRole('button', { name: 'Not now' });
  await notNow.waitFor({ timeout: 5_000 }).catch(() => {});
  if (await notNow.count()) await notNow.click();
  await page.close();
}

/** As `npm start` runs it (emulators on, so push has its keys). A tenant's text with the assistant's draft waiting as a card: the screen the team opens most. */
async function seedConversation(): Promise<string> {
  const core = await getCore('bench-lighthouse');
  const id = newId('c_');
  const at = new Date(Date.now() - 60_000).toISOString();
  const phone = '+14155550111';
  await core.conversations.create({
    id,
    title: 'Text from Maria Lopez',
    source: 'sms',
    contact: { name: 'Maria Lopez', phone },
    preview: 'Maria Lopez: the heater stopped working',
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: 'system',
    pendingCount: 0,
    readBy: {},
  });
  await core.conversations.appendMessage({
    id: newId('m_'),
    conversationId: id,
    role: 'inbound',
    text: 'Hi, the heater in 12 Oak St #2 stopped working last night. Can someone come by?',
    createdAt: at,
    author: { kind: 'contact', name: 'Maria Lopez' },
    channel: 'sms',
  });
  await core.actions.create({
    id: newId('a_'),
    conversationId: id,
    runId: newId('r_'),
    tool: 'send_message',
    args: {
      to: phone,
      text: 'Hi Maria, thanks for letting us know. A technician will confirm a time today.',
    },
    argsHash: 'bench',
    summary: 'Text Maria Lopez',
    status: 'PENDING',
    proposedBy: 'planner',
    reason: 'A tenant reported a maintenance issue; acknowledge it.',
    review: {},
    createdAt: at,
    updatedAt: at,
    version: 1,
  });
  await core.conversations.adjustPending(id, 1);
  return id;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  console.table(await run());
  process.exit();
}
