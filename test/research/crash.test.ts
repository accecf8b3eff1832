import { describe, expect, it } from 'vitest';
import type { PlanItem } from '../../shared/src/contracts/research';
import type { ResearchBrain } from '../../shared/src/research/brain';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { SimulatedCrash } from '../agent/faults';
import { readStep, researchHarness } from './harness';

const read = readStep;

const PLAN: PlanItem[] = [
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
const LEAF_TOOLS = { search_contacts: 1, list_calls: 1, search_emails: 1, search_tasks: 1 };

/**
 * The worker dies at one moment of the run: the write named by `at` (counted across the store, the queue and
 * the conversation) is persisted, then every call of that invocation throws — as a killed process would.
 * Its message comes back after the visibility timeout and another worker carries on.
 */
async function runWithCrash(at: (label: string, n: number) => boolean) {
  const h = await researchHarness();
  const aggregates = new Map<string, number>();
  const brain = h.deps.brain;
  h.deps.brain = {
    ...brain,
    mode: brain.mode,
    plan: brain.plan,
    atomize: brain.atomize,
    execute: brain.execute,
    async aggregate(input) {
      aggregates.set(input.node.id, (aggregates.get(input.node.id) ?? 0) + 1);
      return brain.aggregate(input);
    },
  } satisfies ResearchBrain;
  const task = await startResearch(h.startDeps(), {
    goal: 'summarise Maria Lopez',
    conversationId: 'c1',
    user: h.user,
    plan: PLAN,
  });
  const labels: string[] = [];
  let crashed: string | undefined;
  const wrap = <T extends object>(port: string, target: T, methods: string[]) => {
    for (const m of methods) {
      const rec = target as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const original = rec[m]?.bind(target);
      if (!original) continue;
      rec[m] = async (...args: unknown[]) => {
        const result = await original(...args);
        const target = String(args[1] ?? (args[0] as { id?: string })?.id ?? '');
        const label = `${port}.${m}:${target}${m === 'countDown' ? `<-${String(args[3])}` : ''}`;
        labels.push(label);
        if (!crashed && at(label, labels.length)) {
          crashed = label;
          throw new SimulatedCrash(label);
        }
        return result;
      };
    }
  };
  wrap('research', h.deps.research, [
    'claim',
    'materialize',
    'finish',
    'release',
    'countDown',
    'promote',
    'updateTask',
    'addTokens',
  ]);
  wrap('queue', h.deps.queue, ['send']);
  wrap('conversations', h.deps.conversations, ['appendMessage']);
  await h.drain(80);
  return { h, task, aggregates, labels, crashed };
}

async function expectCleanOutcome(r: Awaited<ReturnType<typeof runWithCrash>>) {
  const g = await r.h.deps.research.load(r.task.id);
  expect(g?.task.status, `crash at ${r.crashed}`).toBe('done');
  expect(g?.task.degraded ?? false, `crash at ${r.crashed}`).toBe(false);
  expect(g?.nodes.every((n) => n.status === 'DONE')).toBe(true);
  expect(g?.nodes.find((n) => n.id === 'r')?.pendingChildren).toBe(0);
  expect(g?.nodes.find((n) => n.id === 'r.2')?.pendingChildren).toBe(0);
  expect(g?.nodes.find((n) => n.id === 'r.2')?.pendingDeps).toBe(0);
  const done = (await r.h.messages()).filter((m) => m.id === `m_research_done_${r.task.id}`);
  expect(done, `crash at ${r.crashed}`).toHaveLength(1);
  expect(r.h.workspace.files.size).toBe(1);
  // Every aggregation step was handled, and the model aggregated each node at most twice: again only when the
  // worker died after the aggregate was written and before the node's DONE was (a redelivered copy of the
  // step's message that finds the node DONE is handled as a no-op).
  const aggregateSteps = new Set(r.h.handled.filter((id) => id.includes('_aggregate_')));
  expect([...aggregateSteps].sort()).toEqual(
    [`rn_${r.task.id}_r.2_aggregate_0`, `rn_${r.task.id}_r_aggregate_0`].sort(),
  );
  for (const [node, count] of r.aggregates)
    expect(count, `${node} after crash at ${r.crashed}`).toBeLessThanOrEqual(2);
}

describe('a worker killed during fan-in loses and repeats nothing', () => {
  it('killed between a leaf’s result and its parent’s readiness: every leaf ran once, the parent aggregated once', async () => {
    // r.2.2 is the last child of r.2 to finish in its round; the crash comes right after its DONE is written.
    for (const point of [
      'research.finish:r.2.2',
      'research.countDown:r.2<-r.2.2',
      'research.countDown:r.2<-r.1',
    ]) {
      const r = await runWithCrash((label) => label === point);
      expect(r.crashed).toBe(point);
      await expectCleanOutcome(r);
      expect(Object.fromEntries(r.h.tools.calls)).toEqual(LEAF_TOOLS);
      expect(Object.fromEntries(r.aggregates)).toEqual({ 'r.2': 1, r: 1 });
    }
  });

  it('killed after the parent was made AGGREGATING but before its message was sent: the redelivery sends it', async () => {
    const r = await runWithCrash((label) => label === 'research.promote:r.2');
    expect(r.crashed).toBe('research.promote:r.2');
    await expectCleanOutcome(r);
    expect(Object.fromEntries(r.h.tools.calls)).toEqual(LEAF_TOOLS);
    expect(Object.fromEntries(r.aggregates)).toEqual({ 'r.2': 1, r: 1 });
  });

  it('killed at any write of the run: the task still ends once, with every node done and one report', async () => {
    const clean = await runWithCrash(() => false);
    await expectCleanOutcome(clean);
    const total = clean.labels.length;
    expect(total).toBeGreaterThan(20);
    for (let n = 1; n <= total; n++) {
      const r = await runWithCrash((_label, i) => i === n);
      await expectCleanOutcome(r);
      // A read may run again only when the worker died after the tool answered and before its DONE was written.
      for (const [tool, count] of r.h.tools.calls)
        expect(count, `${tool} after crash at ${r.crashed}`).toBeLessThanOrEqual(2);
    }
  }, 120_000);
});
