import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { approvalDeps } from '../shared/src/composition/api';
import { getCore } from '../shared/src/composition/core';
import { buildResearchStartDeps } from '../shared/src/composition/research-start';
import type { ResearchGraph } from '../shared/src/ports/research-store';
import { decideApproval } from '../shared/src/use-cases/decide-approval';
import { postChatMessage } from '../shared/src/use-cases/post-chat-message';
import { startResearch } from '../shared/src/use-cases/start-research';

/**
 * Issue 21's "done when", on the whole local stack in rules mode: "summarise Maria Lopez's history" in chat
 * becomes a research task whose plan waits for review; approved from the chat ("run it"), its leaves run as separate queue messages
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
  // The chat run's answer and the root's planning run side by side (separate messages): wait for each.
  await until('the chat reply', async () =>
    (await core.conversations.listMessages(conversation.id)).find((m) => m.text.startsWith("I'm on it")),
  );

  // The plan is said in the chat too, and approved from the chat ("run it"), not only on the review screen.
  const asked = await until('the plan in the chat', async () =>
    (await core.conversations.listMessages(conversation.id)).find((m) =>
      m.text.startsWith('The research plan waits for your review'),
    ),
  );
  expect(asked.text).toContain('Reply “run it”');
  await postChatMessage(core, { text: 'run it', conversationId: conversation.id, user });
  await until('the approval reply', async () =>
    (await core.conversations.listMessages(conversation.id)).find((m) =>
      m.text.startsWith('Approved — running'),
    ),
  );
  const done = await until(
    'the report',
    async () => {
      const g = await research.research.load(taskId);
      return g && ['done', 'failed'].includes(g.task.status) ? g : undefined;
    },
    60_000,
  );
  expect(done.task.status).toBe('done');
  expect(done.task.reviewedBy).toBe(user.name);
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

test('a writing step only drafts: its text waits as an approval card (the normal guard); approved, it is sent once', async () => {
  const core = await getCore('test-research');
  const research = buildResearchStartDeps(core);
  const openphone = stack.emulators?.openphone;
  const at = new Date().toISOString();
  const conversationId = `c_research_write_${Date.now()}`;
  await core.conversations.create({
    ...{ id: conversationId, title: 'Research: tell Maria', source: 'chat', preview: 'tell Maria' },
    ...{ createdAt: at, updatedAt: at, lastMessageAt: at, createdBy: user.id, pendingCount: 0, readBy: {} },
  });
  const sentBefore = openphone?.state.sent.length ?? 0;
  const task = await startResearch(research, {
    goal: 'Find Maria Lopez and text her the heater visit time',
    conversationId,
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
  const card = await until('the approval card', async () =>
    (await core.actions.listByConversation(conversationId)).find((a) => a.tool === 'send_message'),
  );
  expect(card.status).toBe('PENDING');
  expect(card.args).toMatchObject({
    text: 'Hi Maria Lopez, the heater repair visit is confirmed for Thursday at 10am.',
  });
  const done = await until('the report', async () => {
    const g = await research.research.load(task.id);
    return g?.task.status === 'done' ? g : undefined;
  });
  expect(done.nodes.find((n) => n.kind === 'write')?.output?.summary).toContain('Drafted for approval');
  expect(done.task.report).toContain('nothing was sent');
  // Nothing went out while the card waited.
  expect(openphone?.state.sent.length ?? 0).toBe(sentBefore);

  await decideApproval(approvalDeps(core), { conversationId, actionId: card.id, decision: 'approve', user });
  await until('the text sent', async () =>
    (openphone?.state.sent.length ?? 0) > sentBefore ? true : undefined,
  );
  await until('the run finished', async () =>
    (await core.conversations.listMessages(conversationId)).find((m) => m.text.startsWith('Done: Text')),
  );
  const sent = openphone?.state.sent.slice(sentBefore) ?? [];
  expect(sent).toHaveLength(1);
  expect(sent[0]?.text).toContain('Thursday at 10am');
}, 90_000);

/** At least two leaves were running at the same time (separate messages, concurrent workers). */
function overlapping(g: ResearchGraph): boolean {
  const spans = g.nodes
    .filter((n) => n.kind === 'read' && n.startedAt && n.finishedAt)
    .map((n) => [Date.parse(n.startedAt as string), Date.parse(n.finishedAt as string)] as const);
  return spans.some(([s1, e1], i) => spans.some(([s2], j) => i !== j && s2 >= s1 && s2 < e1));
}
