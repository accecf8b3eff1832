import { beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { executeApprovedAction } from '../../shared/src/agent/execute-action';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { argsHash } from '../../shared/src/domain/args-hash';
import { UpstreamError, ValidationError } from '../../shared/src/errors';
import { silentLog } from '../../shared/src/ports/logger';
import { InMemoryActionStore, InMemoryAuditLog } from '../../shared/src/testing/in-memory-stores';
import { type BoundTool, ToolRegistry } from '../../shared/src/tools/registry';

/**
 * The executor (SPEC §6.1, §6.2) with in-memory stores and a counting write tool: only an APPROVED action whose
 * arguments still hash to what was approved runs, it runs once, and an action left EXECUTING by a worker that
 * died is settled by asking the provider (reconcile), never by a blind resend.
 */
const C = 'c_1';
let now = Date.parse('2026-01-05T15:00:00.000Z');
const clock = () => new Date(now);
const STALE_MS = 6 * 60_000;

let actions: InMemoryActionStore;
let audit: InMemoryAuditLog;
let runs: Array<Record<string, unknown>>;
let behaviour: 'ok' | 'unknown' | 'refused';
let provider: Array<{ text: string; at: number }>;
let reconcileCalls: Array<{ since: Date }>;

const notify: BoundTool = {
  name: 'notify_tenant',
  description: 'test write',
  kind: 'write',
  group: 'test',
  input: z.object({ text: z.string() }),
  async run(args) {
    runs.push(args);
    if (behaviour === 'refused') throw new ValidationError('the provider refused the number');
    provider.push({ text: String(args.text), at: now });
    if (behaviour === 'unknown')
      throw Object.assign(new UpstreamError('timed out after sending'), { outcomeUnknown: true });
    return { id: `msg_${provider.length}` };
  },
  async reconcile(args, ctx) {
    reconcileCalls.push({ since: ctx.now });
    const i = provider.findIndex((m) => m.text === args.text && m.at >= ctx.now.getTime());
    return i >= 0 ? { id: `msg_${i + 1}`, reconciled: true } : undefined;
  },
  summarize: () => 'notify',
};
const { reconcile: _none, ...noReconcile } = notify;
const registry = new ToolRegistry([notify, { ...noReconcile, name: 'create_task' }]);

const deps = () => ({ actions, audit, registry, log: silentLog, clock, staleExecutingMs: STALE_MS });
const ctx = { conversationId: C, runId: 'run_1', now: clock(), timezone: 'America/New_York' };
const ref = { conversationId: C, actionId: 'act_1' };

async function approved(over: Partial<PendingAction> = {}) {
  const args = { text: 'Hi Maria' };
  await actions.create({
    id: 'act_1',
    conversationId: C,
    runId: 'run_1',
    tool: 'notify_tenant',
    args,
    argsHash: argsHash(over.tool ?? 'notify_tenant', args),
    summary: 'notify',
    status: 'APPROVED',
    proposedBy: 'planner',
    reason: 'r',
    review: {},
    createdAt: clock().toISOString(),
    updatedAt: clock().toISOString(),
    version: 1,
    ...over,
  });
}

beforeEach(() => {
  actions = new InMemoryActionStore();
  audit = new InMemoryAuditLog(clock);
  runs = [];
  provider = [];
  reconcileCalls = [];
  behaviour = 'ok';
});

describe('an approved action', () => {
  test('runs once; a second execution returns the stored result without running again', async () => {
    await approved();
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({ ok: true, result: { id: 'msg_1' } });
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({ ok: true, result: { id: 'msg_1' } });
    expect(runs).toHaveLength(1);
    expect(await actions.get(C, 'act_1')).toMatchObject({ status: 'EXECUTED', result: { id: 'msg_1' } });
    expect((await audit.list(C)).map((e) => e.type)).toEqual(['action.executed']);
  });

  test('two workers at once: one runs it, the other is told it is in flight', async () => {
    await approved();
    const results = await Promise.allSettled([
      executeApprovedAction(deps(), ref, ctx),
      executeApprovedAction(deps(), ref, ctx),
    ]);
    expect(runs).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const r of rejected) expect(r.reason).toMatchObject({ code: 'action_in_flight', retryable: true });
  });

  test('arguments that no longer hash to the approval are refused and never sent (§6.1)', async () => {
    await approved({ argsHash: argsHash('notify_tenant', { text: 'what was approved' }) });
    const out = await executeApprovedAction(deps(), ref, ctx);
    expect(out).toEqual({ ok: false, error: 'refused: the arguments differ from what was approved' });
    expect(runs).toEqual([]);
    expect((await actions.get(C, 'act_1'))?.status).toBe('FAILED');
  });

  test.each(['PENDING', 'DENIED', 'EXPIRED'] as const)('a %s action is not run', async (status) => {
    await approved({ status });
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({
      ok: false,
      error: `action is ${status}, not approved`,
    });
    expect(runs).toEqual([]);
  });

  test('a provider refusal fails the action with the reason', async () => {
    behaviour = 'refused';
    await approved();
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({
      ok: false,
      error: 'the provider refused the number',
    });
    expect(await actions.get(C, 'act_1')).toMatchObject({
      status: 'FAILED',
      error: 'the provider refused the number',
    });
  });
});

describe('an action left EXECUTING', () => {
  test('an unknown outcome leaves it EXECUTING and asks for a retry (no FAILED, no resend)', async () => {
    behaviour = 'unknown';
    await approved();
    await expect(executeApprovedAction(deps(), ref, ctx)).rejects.toMatchObject({ retryable: true });
    expect((await actions.get(C, 'act_1'))?.status).toBe('EXECUTING');
    expect(provider).toHaveLength(1);
  });

  test('while fresh it belongs to the worker that claimed it', async () => {
    await approved({ status: 'EXECUTING', executingSince: clock().toISOString() });
    await expect(executeApprovedAction(deps(), ref, ctx)).rejects.toMatchObject({ code: 'action_in_flight' });
    expect(runs).toEqual([]);
    expect(reconcileCalls).toEqual([]);
  });

  test('once stale, a write the provider has is adopted (reconciled) instead of resent', async () => {
    behaviour = 'unknown';
    await approved();
    await executeApprovedAction(deps(), ref, ctx).catch(() => {});
    const since = (await actions.get(C, 'act_1'))?.executingSince;
    now += STALE_MS + 1;
    behaviour = 'ok';
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({
      ok: true,
      result: { id: 'msg_1', reconciled: true },
    });
    expect(provider).toHaveLength(1);
    expect(reconcileCalls.map((c) => c.since.toISOString())).toEqual([since]);
    expect((await audit.list(C)).map((e) => e.type)).toEqual(['action.reconciled']);
  });

  test('once stale, a write the provider does not have is sent — for the first time', async () => {
    const since = new Date(now - STALE_MS - 1).toISOString();
    // An identical older message must not be taken for this one.
    provider.push({ text: 'Hi Maria', at: now - STALE_MS - 60_000 });
    await approved({ status: 'EXECUTING', executingSince: since });
    expect(await executeApprovedAction(deps(), ref, ctx)).toEqual({ ok: true, result: { id: 'msg_2' } });
    expect(runs).toHaveLength(1);
    expect((await actions.get(C, 'act_1'))?.status).toBe('EXECUTED');
  });

  test('a tool that cannot be reconciled is FAILED "outcome unknown" for a person, not resent', async () => {
    const args = { text: 'Hi Maria' };
    await approved({
      tool: 'create_task',
      argsHash: argsHash('create_task', args),
      status: 'EXECUTING',
      executingSince: new Date(now - STALE_MS - 1).toISOString(),
    });
    const out = await executeApprovedAction(deps(), ref, ctx);
    expect(out.ok).toBe(false);
    expect((out as { error: string }).error).toMatch(/outcome unknown/);
    expect(runs).toEqual([]);
    expect((await actions.get(C, 'act_1'))?.status).toBe('FAILED');
  });
});
