import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildResearchStartDeps } from '../../shared/src/composition/research-start';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { type E2E, PHONE, startE2E } from './support';

/**
 * Research in the PWA (issue 21), in a real Chromium on the local stack: the plan of "summarise Maria
 * Lopez's history" waits for review, the person removes a step and approves, the tree fills in live (a bar
 * per step on the task's clock) and the report appears in the conversation.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 180_000);
afterAll(async () => {
  await e?.stop();
});

const DESKTOP_WIDE = { width: 1440, height: 900 };
const user = { id: 'u_sam', email: 'sam@oakproperties.example', name: 'Sam Chen' };

test('review the plan, remove a step, approve, watch the tree, read the report (phone and desktop)', async () => {
  const { conversation } = await postChatMessage(e.core, { text: "summarise Maria Lopez's history", user });
  const research = buildResearchStartDeps(e.core);
  const context = await e.newContext(PHONE);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`/chat?id=${conversation.id}`);
  await e.signIn(page, 'Sam Chen');

  const card = page.locator('article.research-card');
  await card.waitFor({ timeout: 30_000 });
  await expect.poll(() => card.getAttribute('data-status'), { timeout: 30_000 }).toBe('review');
  await page.getByText('This plan waits for you').waitFor();
  expect(await card.locator('[data-step-key]').count()).toBe(9);
  await card.scrollIntoViewIfNeeded();
  await e.shot(page, 'research-review-phone');
  // The plan is said in the chat as well, with how to answer it there.
  const asked = page.getByText('The research plan waits for your review');
  await asked.scrollIntoViewIfNeeded();
  await e.shot(page, 'research-review-chat-phone');

  // The person edits the plan: removes the "Tasks and appointments" group, changes what the conversations
  // search looks for, and adds a step of their own.
  await card.getByRole('button', { name: /Remove “Tasks and appointments/ }).click();
  expect(await card.locator('[data-step-key]').count()).toBe(6);
  await card.getByLabel('Search words for “Conversations mentioning Maria Lopez”').fill('heater');
  await card.getByRole('button', { name: '+ Add a step' }).click();
  const added = card.locator('[data-step-key^="added"]');
  await added.getByLabel('Step', { exact: true }).fill('Conversations about the lease renewal');
  await added.getByLabel(/^Search words for/).fill('lease renewal');
  expect(await card.locator('[data-step-key]').count()).toBe(7);
  await card.scrollIntoViewIfNeeded();
  await e.shot(page, 'research-edited-phone');
  await card.getByRole('button', { name: 'Approve and run' }).click();

  await expect.poll(() => card.getAttribute('data-status'), { timeout: 45_000 }).toBe('done');
  const taskId = (await card.getAttribute('data-task-id')) as string;
  const g = await research.research.load(taskId);
  expect(g?.task.reviewedBy).toBe('Sam Chen');
  expect(g?.nodes.some((n) => n.goal.startsWith('Tasks and appointments'))).toBe(false);
  expect(g?.nodes.filter((n) => n.kind === 'read').every((n) => n.status === 'DONE')).toBe(true);
  // It ran as edited: the changed search words, and the added step with the words typed for it.
  expect(g?.nodes.find((n) => n.goal === 'Conversations mentioning Maria Lopez')?.args).toEqual({
    query: 'heater',
  });
  expect(g?.nodes.find((n) => n.goal === 'Conversations about the lease renewal')).toMatchObject({
    status: 'DONE',
    tool: 'search_conversations',
    args: { query: 'lease renewal' },
  });
  // The tree: one row per step, each with its timing bar; tapping a step shows its result.
  expect(await card.locator('.tree-row').count()).toBe(g?.nodes.length);
  expect(await card.locator('.node-bar').count()).toBe(g?.nodes.length);
  const callsId = g?.nodes.find((n) => n.goal === 'Calls with Maria Lopez')?.id;
  const calls = card.locator(`[data-node-id="${callsId}"]`);
  await calls.locator('summary').click();
  await calls.locator('.node-detail').waitFor();
  expect(await calls.locator('.node-detail').textContent()).toContain('list_calls');
  await card.locator('.research-report').waitFor();
  expect(await card.locator('.research-report').textContent()).toContain('Saved to reports/');
  await card.locator('.research-tree').scrollIntoViewIfNeeded();
  await e.shot(page, 'research-tree-phone');
  await card.locator('.research-report').scrollIntoViewIfNeeded();
  await e.shot(page, 'research-report-phone');
  // Nothing in the card (a long address, a path, a result) pushes the conversation sideways on a phone.
  expect(
    await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
  ).toBeLessThanOrEqual(0);
  expect(errors).toEqual([]);

  const wide = await e.newContext(DESKTOP_WIDE);
  const desk = await wide.newPage();
  await desk.goto(`/chat?id=${conversation.id}`);
  await e.signIn(desk, 'Sam Chen');
  await desk.locator('article.research-card[data-status="done"]').waitFor({ timeout: 20_000 });
  await desk.locator('.research-tree').scrollIntoViewIfNeeded();
  await e.shot(desk, 'research-tree-desktop');
  await context.close();
  await wide.close();
}, 180_000);

test('a writing step: the tree says "drafted · needs approval" and its text waits as a card below (phone and desktop)', async () => {
  const { conversation } = await postChatMessage(e.core, { text: 'hello', user });
  const research = buildResearchStartDeps(e.core);
  const task = await startResearch(research, {
    goal: 'Tell Maria Lopez when the heater repair is',
    conversationId: conversation.id,
    user,
    reviewedBy: user.name,
    plan: [
      {
        key: 'who',
        goal: 'Find Maria Lopez',
        kind: 'read',
        tool: 'search_contacts',
        args: { query: 'Maria Lopez' },
        dependsOn: [],
      },
      {
        key: 'tell',
        goal: 'Text Maria the visit time',
        kind: 'write',
        tool: 'send_message',
        args: {
          to: '{{phone}}',
          text: 'Hi {{name}}, the heater repair visit is confirmed for Thursday at 10am.',
        },
        dependsOn: ['who'],
      },
    ],
  });
  for (const [viewport, name] of [
    [PHONE, 'research-write-card-phone'],
    [DESKTOP_WIDE, 'research-write-card-desktop'],
  ] as const) {
    const context = await e.newContext(viewport);
    const page = await context.newPage();
    await page.goto(`/chat?id=${conversation.id}`);
    await e.signIn(page, 'Sam Chen');
    const card = page.locator(`article.research-card[data-task-id="${task.id}"]`);
    await expect.poll(() => card.getAttribute('data-status'), { timeout: 45_000 }).toBe('done');
    const drafted = card.locator('[data-node-id="r.2"] .node-meta');
    expect(await drafted.textContent()).toContain('drafted · needs approval');
    const approval = page.locator('article.approval[data-status="PENDING"]');
    await approval.waitFor({ timeout: 30_000 });
    expect(await approval.textContent()).toContain('Thursday at 10am');
    await approval.scrollIntoViewIfNeeded();
    await e.shot(page, name);
    await card.locator('.research-tree').scrollIntoViewIfNeeded();
    await e.shot(page, `${name}-tree`);
    await context.close();
  }
}, 180_000);
