import { describe, expect, it } from 'vitest';
import type { PlanItem } from '../../shared/src/contracts/research';
import { researchChatReview } from '../../shared/src/use-cases/research-chat-review';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { researchHarness } from './harness';

/** A compute step makes the plan wait for a person (issue 21's review rule). */
const PLAN: PlanItem[] = [
  {
    key: 'tasks',
    goal: 'Open tasks',
    kind: 'read',
    tool: 'search_tasks',
    args: { query: 'Oak' },
    dependsOn: [],
  },
  { key: 'count', goal: 'Count them', kind: 'compute', code: 'INPUTS.length', dependsOn: ['tasks'] },
];
const sam = { id: 'u_sam', email: 'sam@oakproperties.example', name: 'Sam' };

async function inReview() {
  const h = await researchHarness();
  const task = await startResearch(h.startDeps(), {
    goal: 'count open tasks',
    conversationId: 'c1',
    user: h.user,
    plan: PLAN,
  });
  await h.drain();
  const deps = { conversations: h.deps.conversations, research: h.deps };
  return { h, task, deps };
}

describe('answering a plan in review from the chat', () => {
  it('the plan is said in the chat; other words fall through to the planner; "run it" approves it as shown', async () => {
    const { h, task, deps } = await inReview();
    const said = (await h.messages()).find((m) => m.id.startsWith(`m_research_review_${task.id}`));
    expect(said?.text).toContain('1. Open tasks\n2. Count them');
    expect(await researchChatReview(deps, 'c1', 'what is open at 12 Oak St?', sam)).toBeUndefined();
    // A "yes, but …" is not the plan as shown: it goes on to the planner and the plan keeps waiting.
    expect(await researchChatReview(deps, 'c1', 'yes, but only the last 3 months', sam)).toBeUndefined();
    expect((await h.deps.research.getTask(task.id))?.status).toBe('review');
    const out = await researchChatReview(deps, 'c1', 'Run it, please!', sam);
    expect(out?.outcome).toContain('approved from the chat');
    const g = await h.deps.research.load(task.id);
    expect(g?.task.reviewedBy).toBe('Sam');
    expect(g?.nodes.filter((n) => n.parentId === 'r').map((n) => n.goal)).toEqual([
      'Open tasks',
      'Count them',
    ]);
    expect((await h.messages()).map((m) => m.text)).toContain(
      "Approved — running the plan's 2 steps now. Their progress shows below.",
    );
    // Once it runs, "yes" is no longer an answer to it: the chat goes on as usual.
    expect(await researchChatReview(deps, 'c1', 'yes', sam)).toBeUndefined();
  });

  it('"cancel" drops the plan, told once in the conversation', async () => {
    const { h, task, deps } = await inReview();
    await researchChatReview(deps, 'c1', 'cancel that', sam);
    expect((await h.deps.research.getTask(task.id))?.status).toBe('cancelled');
    expect((await h.messages()).filter((m) => m.text.startsWith('Research cancelled by Sam'))).toHaveLength(
      1,
    );
  });
});
