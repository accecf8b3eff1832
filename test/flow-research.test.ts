import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import { buildResearchStartDeps } from '../shared/src/composition/research-start';
import type { ResearchGraph } from '../shared/src/ports/research-store';
import { postChatMessage } from '../shared/src/use-cases/post-chat-message';
import { approveResearchPlan } from '../shared/src/use-cases/review-research';

/**
 * Issue 21's "done when", on the whole local stack in rules mode: "summarise Maria Lopez's history" in chat
 * becomes a research task whose plan waits for review; approved, its leaves run as separate queue messages
 * on the concurrent local poller against the emulators, and the report lands in the conversation and in
 * the memory repository.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const user = { id: 'u_alex', email: 'alex@oakproperties.example', name: 'Alex Rivera' };

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await get();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('"summarise Maria Lopez\'s history" in chat: plan, review, parallel leaves, report in the conversation and the memory repo', async () => {
  const core = await getCore('test-research');
  const research = buildResearchStartDeps(core);
  const { conversation } = await postChatMessage(core, { text: "summarise Maria Lopez's history", user });
  const started = await until('the research message', async () =>
    (await core.conversations.listMessages(conversation.id)).find((m) => m.research),
  );
  const taskId = started.research?.taskId as string;
  const review = await until('the plan', async () => {
    const g = await research.research.load(taskId);
    return g?.task.status === 'review' ? g : undefined;
  });
  expect(review.task.draft?.map((i) => i.key)).toEqual(['who', 'comms', 'commitments', 'threads']);
  const reply = (await core.conversations.listMessages(conversation.id)).find((m) =>
    m.text.startsWith("I'm on it"),
  );
  expect(reply).toBeDefined();

  await approveResearchPlan(research, taskId, user);
  const done = await until(
    'the report',
    async () => {
      const g = await research.research.load(taskId);
      return g && ['done', 'failed'].includes(g.task.status) ? g : undefined;
    },
    60_000,
  );
  expect(done.task.status).toBe('done');
  const leaves = done.nodes.filter((n) => n.kind === 'read');
  expect(leaves.length).toBeGreaterThanOrEqual(6);
  expect(leaves.every((n) => n.status === 'DONE')).toBe(true);
  expect(overlapping(done)).toBe(true);
  expect(done.task.report).toContain('Maria Lopez');
  expect(done.task.reportPath).toMatch(/^reports\/\d{4}-\d{2}-\d{2}-summarise-maria-lopez-s-history-/);
  const last = await until('the report message', async () =>
    (await core.conversations.listMessages(conversation.id)).find(
      (m) => m.id === `m_research_done_${taskId}`,
    ),
  );
  expect(last.research?.reportPath).toBe(done.task.reportPath);
  // The report is committed and pushed to the team's memory repository (the local git server's bare repo).
  const root = stack.emulators?.git.root as string;
  const committed = execFileSync(
    'git',
    ['--git-dir', join(root, 'memory.git'), 'show', `HEAD:${done.task.reportPath}`],
    {
      encoding: 'utf8',
    },
  );
  expect(committed).toContain("# Research: summarise Maria Lopez's history");
}, 120_000);

/** At least two leaves were running at the same time (separate messages, concurrent workers). */
function overlapping(g: ResearchGraph): boolean {
  const spans = g.nodes
    .filter((n) => n.kind === 'read' && n.startedAt && n.finishedAt)
    .map((n) => [Date.parse(n.startedAt as string), Date.parse(n.finishedAt as string)] as const);
  return spans.some(([s1, e1], i) => spans.some(([s2], j) => i !== j && s2 >= s1 && s2 < e1));
}
