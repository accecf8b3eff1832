import { describe, expect, it } from 'vitest';
import type { PlanItem } from '../../shared/src/contracts/research';
import { UpstreamError } from '../../shared/src/errors';
import {
  approveResearchPlan,
  cancelResearch,
  editResearchPlan,
} from '../../shared/src/use-cases/review-research';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { readStep, researchHarness } from './harness';

const read = readStep;

/** 1 leaf, then a planning node (depending on it) with 2 leaves, and a last leaf: 5 nodes, no review. */
const SMALL: PlanItem[] = [
  read('who', 'search_contacts', { query: 'Maria Lopez' }),
  {
    key: 'comms',
    goal: 'Communications',
    kind: 'plan',
    dependsOn: ['who'],
    subtasks: [
      read('calls', 'list_calls', { participant: '{{phone}}' }),
      read('email', 'search_emails', { query: '{{email}}' }),
    ],
  },
  read('tasks', 'search_tasks', { query: 'Maria Lopez' }),
];

async function start(
  h: Awaited<ReturnType<typeof researchHarness>>,
  plan?: PlanItem[],
  goal = 'summarise Maria Lopez history',
) {
  return startResearch(h.startDeps(), {
    goal,
    conversationId: 'c1',
    user: h.user,
    ...(plan ? { plan } : {}),
  });
}

describe('research task graph (rules mode, DynamoDB Local)', () => {
  it('runs a plan bottom-up: dependencies gate readiness, facts flow into arguments, the report is saved and linked', async () => {
    const h = await researchHarness();
    const task = await start(h, SMALL);
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(g?.nodes.map((n) => `${n.id}:${n.status}`)).toEqual([
      'r:DONE',
      'r.1:DONE',
      'r.2:DONE',
      'r.2.1:DONE',
      'r.2.2:DONE',
      'r.3:DONE',
    ]);
    // The calls step got the phone the contact step found (its context records it).
    const calls = g?.nodes.find((n) => n.id === 'r.2.1');
    expect(calls?.context?.facts.phone).toBe('+14155550111');
    expect(g?.nodes.find((n) => n.id === 'r.2')?.context?.inputs[0]?.nodeId).toBe('r.1');
    for (const n of g?.nodes ?? [])
      expect(n.finishedAt && n.startedAt && n.finishedAt >= n.startedAt).toBe(true);
    expect([...h.workspace.files.keys()]).toEqual([g?.task.reportPath]);
    const report = h.workspace.files.get(g?.task.reportPath ?? '') ?? '';
    expect(report).toContain('# Research: summarise Maria Lopez history');
    expect(report).toContain('Lease renewal');
    const msgs = await h.messages();
    expect(
      msgs
        .filter((m) => m.research?.taskId === task.id)
        .map((m) => m.id)
        .sort(),
    ).toEqual([`m_research_${task.id}`, `m_research_done_${task.id}`].sort());
    expect(msgs.find((m) => m.id === `m_research_done_${task.id}`)?.research?.reportPath).toBe(
      g?.task.reportPath,
    );
    // Each leaf's tool ran once.
    expect(Object.fromEntries(h.tools.calls)).toEqual({
      search_contacts: 1,
      list_calls: 1,
      search_emails: 1,
      search_tasks: 1,
    });
  });

  it('runs independent leaves in the same round (parallel messages), dependent ones after', async () => {
    const h = await researchHarness();
    const task = await start(h, SMALL);
    // round 1: root plans; round 2: who + tasks together.
    await h.drain(1);
    expect(h.queue.map((e) => (e.payload as { nodeId: string }).nodeId).sort()).toEqual(['r.1', 'r.3']);
    await h.drain();
    expect((await h.deps.research.getTask(task.id))?.status).toBe('done');
  });

  it('retries a leaf that failed transiently (with backoff) and degrades the report when a leaf keeps failing', async () => {
    const h = await researchHarness();
    h.tools.fail.set('list_calls', {
      times: 1,
      error: () => new UpstreamError('Quo 503', { retryable: true }),
    });
    h.tools.fail.set('search_emails', {
      times: 9,
      error: () => new UpstreamError('Gmail 500', { retryable: true }),
    });
    const task = await start(h, SMALL);
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(g?.task.degraded).toBe(true);
    const calls = g?.nodes.find((n) => n.id === 'r.2.1');
    expect(calls?.status).toBe('DONE');
    expect(calls?.attempts).toBe(1);
    const email = g?.nodes.find((n) => n.id === 'r.2.2');
    expect(email?.status).toBe('FAILED');
    expect(email?.attempts).toBe(2);
    expect(email?.error).toContain('Gmail 500');
    expect(h.tools.calls.get('search_emails')).toBe(3);
    expect(g?.nodes.find((n) => n.id === 'r.2')?.degraded).toBe(true);
    expect(g?.task.report).toContain('Not available: Gmail 500');
    expect((await h.messages()).find((m) => m.id === `m_research_done_${task.id}`)?.text).toContain(
      'some steps failed',
    );
  });

  it('a write tool never runs inside a task (it is drafted as a proposal); a missing fact fails only its step', async () => {
    const h = await researchHarness();
    const task = await start(h, [
      read('send', 'send_message', { to: '+14155550111', text: 'hi' }),
      read('who', 'search_contacts', { query: 'Nobody Here' }),
      read('calls', 'list_calls', { participant: '{{phone}}' }, ['who']),
    ]);
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(h.tools.calls.get('send_message')).toBeUndefined();
    const send = g?.nodes.find((n) => n.id === 'r.1');
    expect(send?.status).toBe('DONE');
    expect(send?.output?.proposal).toMatchObject({ tool: 'send_message', args: { text: 'hi' } });
    expect(h.handled).toContain(`rn_${task.id}_r.1_propose_0`);
    expect(g?.nodes.find((n) => n.id === 'r.3')?.error).toContain('no phone is known');
  });

  it('a large plan waits for review; the person edits it and it runs as edited', async () => {
    const h = await researchHarness();
    const task = await start(h, undefined, "summarise Maria Lopez's history");
    await h.drain();
    let g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('review');
    expect(g?.task.reviewReason).toContain('more than 6');
    expect(g?.nodes).toHaveLength(1);
    const draft = g?.task.draft ?? [];
    // Remove the commitments group, edit a goal, add a step.
    const edited: PlanItem[] = [
      ...draft
        .filter((i) => i.key !== 'commitments')
        .map((i) => (i.key === 'threads' ? { ...i, goal: 'Every thread about Maria' } : i)),
      read('notes', 'search_files', { query: 'Maria Lopez' }),
    ];
    await editResearchPlan(h.deps, task.id, edited);
    await expect(editResearchPlan(h.deps, task.id, [read('a', 'search_files', {}, ['zzz'])])).rejects.toThrow(
      /unknown step/,
    );
    await approveResearchPlan(h.deps, task.id, h.user);
    await expect(approveResearchPlan(h.deps, task.id, h.user)).rejects.toThrow(/running/);
    await h.drain();
    g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(g?.task.reviewedBy).toBe('Sam');
    expect(g?.nodes.map((n) => n.goal)).toContain('Every thread about Maria');
    expect(h.tools.calls.get('search_tasks')).toBeUndefined();
    expect(h.tools.calls.get('search_files')).toBe(1);
  });

  it('cancel stops the task: steps not yet run are dropped and the conversation is told once', async () => {
    const h = await researchHarness();
    const task = await start(h, SMALL);
    await h.drain(2);
    await cancelResearch(h.deps, task.id, h.user);
    await expect(cancelResearch(h.deps, task.id, h.user)).rejects.toThrow(/already cancelled/);
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('cancelled');
    expect(g?.nodes.some((n) => n.status === 'CANCELLED')).toBe(true);
    expect(h.tools.calls.get('list_calls')).toBeUndefined();
    expect((await h.messages()).filter((m) => m.text.startsWith('Research cancelled'))).toHaveLength(1);
  });

  it('the node budget stops a sub-plan that would exceed it (degraded), or the whole plan (failed)', async () => {
    const h = await researchHarness();
    const task = await startResearch(h.startDeps(), {
      goal: 'summarise Maria Lopez history',
      conversationId: 'c1',
      user: h.user,
      plan: SMALL,
      budget: { maxNodes: 4 },
    });
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(g?.task.degraded).toBe(true);
    expect(g?.task.usage.nodes).toBe(4);
    expect(g?.nodes.find((n) => n.id === 'r.2')?.error).toContain('more than 4 steps');
    const tiny = await startResearch(h.startDeps(), {
      goal: 'summarise Maria Lopez history',
      conversationId: 'c1',
      user: h.user,
      plan: SMALL,
      budget: { maxNodes: 3 },
    });
    await h.drain();
    const t = await h.deps.research.load(tiny.id);
    expect(t?.task.status).toBe('failed');
    expect(t?.task.error).toContain('more than 3 steps');
  });

  it('the time budget fails steps that start after the deadline', async () => {
    const h = await researchHarness();
    const task = await start(h, SMALL);
    await h.drain(2);
    h.advance(11 * 60_000);
    await h.drain();
    const g = await h.deps.research.load(task.id);
    expect(g?.task.status).toBe('done');
    expect(g?.task.degraded).toBe(true);
    expect(g?.nodes.filter((n) => n.error?.includes('budget: the task ran past')).length).toBeGreaterThan(0);
  });
});
