import { describe, expect, it } from 'vitest';
import type { PlanItem } from '../../shared/src/contracts/research';
import { researchChatReview, researchReviewByText } from '../../shared/src/use-cases/research-chat-review';
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
    expect(
      await researchChatReview(deps, 'c1', 'what is open at 12 Oak St?', sam, { eventId: 'e1' }),
    ).toBeUndefined();
    // A "yes, but …" is not the plan as shown: it goes on to the planner and the plan keeps waiting.
    expect(
      await researchChatReview(deps, 'c1', 'yes, but only the last 3 months', sam, { eventId: 'e2' }),
    ).toBeUndefined();
    expect((await h.deps.research.getTask(task.id))?.status).toBe('review');
    const out = await researchChatReview(deps, 'c1', 'Run it, please!', sam, { eventId: 'e3' });
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
    expect(await researchChatReview(deps, 'c1', 'yes', sam, { eventId: 'e4' })).toBeUndefined();
  });

  it('"cancel" drops the plan, told once in the conversation', async () => {
    const { h, task, deps } = await inReview();
    await researchChatReview(deps, 'c1', 'cancel that', sam, { eventId: 'e5' });
    expect((await h.deps.research.getTask(task.id))?.status).toBe('cancelled');
    expect((await h.messages()).filter((m) => m.text.startsWith('Research cancelled by Sam'))).toHaveLength(
      1,
    );
  });

  it('"remove 1" edits the plan from the chat and says the new one; a step that is not there is explained', async () => {
    const { h, task, deps } = await inReview();
    const wrong = await researchChatReview(deps, 'c1', 'remove 5', sam, { eventId: 'e6' });
    expect(wrong?.outcome).toContain('edited from the chat');
    expect((await h.messages()).map((m) => m.text)).toContain('There is no step 5; the plan has 2 steps.');
    await researchChatReview(deps, 'c1', 'Remove step 1, please', sam, { eventId: 'e7' });
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('review');
    // The step that waited for the removed one no longer does.
    expect(g?.task.draft).toEqual([{ ...PLAN[1], dependsOn: [] }]);
    const plans = (await h.messages()).filter((m) => m.id.startsWith(`m_research_review_${task.id}`));
    expect(plans).toHaveLength(2);
    expect(plans.at(-1)?.text).toMatch(
      /^The research plan waits for your review — edited by Sam: step 1 removed:\n1\. Count them\n/,
    );
    // The same message again (a redelivered chat turn): its edit is already applied, nothing more is removed.
    await researchChatReview(deps, 'c1', 'Remove step 1, please', sam, { eventId: 'e7' });
    expect((await h.deps.research.getTask(task.id))?.draft).toEqual([{ ...PLAN[1], dependsOn: [] }]);
    expect((await h.messages()).filter((m) => m.id.startsWith(`m_research_review_${task.id}`))).toHaveLength(
      2,
    );
    await researchChatReview(deps, 'c1', 'run it', sam, { eventId: 'e8' });
    expect(
      (await h.deps.research.load(task.id))?.nodes.filter((n) => n.parentId === 'r').map((n) => n.goal),
    ).toEqual(['Count them']);
  });

  it('by text, answers that arrived together in one cooldown window apply in order; anything else goes on', async () => {
    const { h, task, deps } = await inReview();
    const texts = (...t: string[]) => t.map((text, i) => ({ text, eventId: `sms${i}` }));
    // A text that is not an answer among them: none is taken as one (the planner reads them together).
    expect(await researchReviewByText(deps, 'c1', texts('remove 1', 'and call Bob'), sam)).toBeUndefined();
    expect((await h.deps.research.getTask(task.id))?.draft).toHaveLength(2);
    const reply = await researchReviewByText(deps, 'c1', texts('remove 1', 'run it'), sam);
    expect(reply).toMatch(
      /^Research plan for “count open tasks” waits for you — edited by Sam: step 1 removed:\n1\. Count them\n/,
    );
    expect(reply).toContain(
      "Approved — running the plan's 1 step now. I will text you when the report is ready.",
    );
    const g = await h.deps.research.load(task.id);
    expect(g?.nodes.filter((n) => n.parentId === 'r').map((n) => n.goal)).toEqual(['Count them']);
  });
});
