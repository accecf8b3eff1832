import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EventOf } from '../../shared/src/contracts/events';
import { type PlanItem, type ResearchView, researchView } from '../../shared/src/contracts/research';
import { rulesBrain } from '../../shared/src/research/brain';
import { runResearchNode } from '../../shared/src/use-cases/run-research-node';
import { fakeTools } from '../research/harness';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';

let h: ApiHarness;
let member: string;

beforeAll(async () => {
  h = await startApiHarness();
  member = await h.token(MEMBER, { name: 'Sam Chen' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const view = async (res: Response) => researchView.parse(await res.json()) as ResearchView;

/** What the worker does with the queued research messages (rules brain over canned read tools). */
async function work() {
  const deps = {
    ...h.api.research,
    brain: rulesBrain({
      registry: fakeTools().registry,
      clock: h.api.clock,
      timezone: 'America/Los_Angeles',
    }),
  };
  for (let round = 0; round < 20; round++) {
    const events = await h.receiveEvents();
    if (!events.length) return;
    await Promise.all(events.map((e) => runResearchNode(deps, e as EventOf<'research.node'>)));
  }
}

describe('research API', () => {
  test('POST /api/research starts a task in a new conversation; a large plan waits for review, edits are checked, approval runs it', async () => {
    const res = await h.call('POST', '/api/research', {
      token: member,
      body: { goal: "summarise Maria Lopez's history" },
    });
    expect(res.status).toBe(201);
    const started = await view(res);
    expect(started.task.status).toBe('planning');
    const conv = await h.api.conversations.get(started.task.conversationId);
    expect(conv?.title).toContain('Research: summarise Maria');
    await work();

    const id = started.task.id;
    const g = await view(await h.call('GET', `/api/research/${id}`, { token: member }));
    expect(g.task.status).toBe('review');
    expect(g.task.draft?.map((i) => i.key)).toEqual(['who', 'comms', 'commitments', 'threads']);

    const bad = await h.call('PUT', `/api/research/${id}/plan`, {
      token: member,
      body: { plan: [{ key: 'a', goal: 'Find', kind: 'read', tool: 'search_contacts', dependsOn: ['b'] }] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      'unknown step “b”',
    );
    const empty = await h.call('PUT', `/api/research/${id}/plan`, { token: member, body: { plan: [] } });
    expect(empty.status).toBe(400);

    const edited: PlanItem[] = (g.task.draft ?? []).filter((i) => i.key === 'who' || i.key === 'threads');
    const put = await view(
      await h.call('PUT', `/api/research/${id}/plan`, { token: member, body: { plan: edited } }),
    );
    expect(put.task.draft).toHaveLength(2);

    const ok = await h.call('POST', `/api/research/${id}/approve`, { token: member, body: {} });
    expect(ok.status).toBe(200);
    expect((await view(ok)).nodes.map((n) => n.id)).toEqual(['r', 'r.1', 'r.2']);
    expect((await h.call('POST', `/api/research/${id}/approve`, { token: member, body: {} })).status).toBe(
      409,
    );
    await work();
    const done = await view(await h.call('GET', `/api/research/${id}`, { token: member }));
    expect(done.task.status).toBe('done');
    expect(done.task.reviewedBy).toBe('Sam Chen');
    expect(done.task.report).toContain('Maria Lopez');
    expect((await h.call('POST', `/api/research/${id}/cancel`, { token: member })).status).toBe(409);
  });

  test('re-plan from edits and cancel; bad input is a clear 4xx', async () => {
    const conv = await view(
      await h.call('POST', '/api/research', {
        token: member,
        body: { goal: 'vendor history of Acme Heating' },
      }),
    );
    await work();
    const id = conv.task.id;
    const g = await view(await h.call('GET', `/api/research/${id}`, { token: member }));
    expect(g.task.status).toBe('review');
    const plan = (g.task.draft ?? []).map((i) => (i.kind === 'plan' ? { ...i, subtasks: undefined } : i));
    const re = await h.call('POST', `/api/research/${id}/replan`, {
      token: member,
      body: { plan, note: 'keep it short' },
    });
    expect(re.status).toBe(200);
    await work();
    const after = await view(await h.call('GET', `/api/research/${id}`, { token: member }));
    expect(after.task.status).toBe('review');
    expect(after.task.draft?.find((i) => i.kind === 'plan')?.subtasks?.length).toBeGreaterThan(0);
    const cancel = await h.call('POST', `/api/research/${id}/cancel`, { token: member });
    expect((await view(cancel)).task.status).toBe('cancelled');

    expect((await h.call('GET', '/api/research/rt_nope', { token: member })).status).toBe(404);
    expect((await h.call('POST', '/api/research', { token: member, body: { goal: 'x' } })).status).toBe(400);
    expect((await h.call('POST', '/api/research', { token: member, body: '{nope' })).status).toBe(400);
    expect(
      (
        await h.call('POST', '/api/research', {
          token: member,
          body: { goal: 'research Bob', conversationId: 'c_missing' },
        })
      ).status,
    ).toBe(404);
    expect((await h.call('POST', '/api/research', { body: { goal: 'research Bob' } })).status).toBe(401);
  });
});
