import { beforeEach, describe, expect, test } from 'vitest';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { argsHash } from '../../shared/src/domain/args-hash';
import { ConflictError, ValidationError } from '../../shared/src/errors';
import { inMemoryStores } from '../../shared/src/testing/in-memory-stores';
import { sendMessage } from '../../shared/src/tools/openphone';
import { bindTool, ToolRegistry } from '../../shared/src/tools/registry';
import { type DecideApprovalInput, decideApproval } from '../../shared/src/use-cases/decide-approval';

/**
 * decideApproval (use case, in-memory stores): approve, approve with an edit re-validated against the tool's
 * own schema through the registry, deny with a reason, and two people deciding the same card at once.
 */
const registry = new ToolRegistry([
  // Only the schema matters here: the decision never runs the tool.
  bindTool(sendMessage, {} as never),
]);
const clock = () => new Date('2026-01-05T15:00:00.000Z');
let stores: ReturnType<typeof inMemoryStores>;
const deps = () => ({ ...stores, clock, validateArgs: registry.validateArgs.bind(registry) });
const C = 'c_1';

const draft = (over: Partial<PendingAction> = {}): PendingAction => {
  const args = { to: '+14155550111', text: 'Hi Maria, the plumber comes at 3.' };
  return {
    id: 'act_1',
    conversationId: C,
    runId: 'run_1',
    tool: 'send_message',
    args,
    argsHash: argsHash('send_message', args),
    summary: 'Text Maria',
    status: 'PENDING',
    proposedBy: 'planner',
    reason: 'as asked',
    review: {},
    createdAt: clock().toISOString(),
    updatedAt: clock().toISOString(),
    version: 0,
    ...over,
  };
};
const sam = { id: 'u_sam', email: 'sam@oakproperties.example' };
const alex = { id: 'u_alex', email: 'alex@oakproperties.example' };
const input = (over: Partial<DecideApprovalInput> = {}): DecideApprovalInput => ({
  conversationId: C,
  actionId: 'act_1',
  decision: 'approve',
  user: sam,
  ...over,
});

beforeEach(async () => {
  stores = inMemoryStores(clock);
  await stores.conversations.create({
    id: C,
    title: 'Maria',
    source: 'sms',
    preview: '',
    createdAt: clock().toISOString(),
    updatedAt: clock().toISOString(),
    lastMessageAt: clock().toISOString(),
    createdBy: 'system',
    pendingCount: 1,
    readBy: {},
  });
  await stores.actions.create(draft());
});

describe('approve', () => {
  test('moves the card to APPROVED, audits who, and enqueues the resume of its run', async () => {
    const out = await decideApproval(deps(), input());
    expect(out).toMatchObject({ status: 'APPROVED', decidedBy: sam.email, version: 1 });
    expect(out.edit).toBeUndefined();
    expect((await stores.conversations.get(C))?.pendingCount).toBe(0);
    expect(stores.queue.ofType('approval.decided').map((e) => e.payload)).toEqual([
      { conversationId: C, actionId: 'act_1', runId: 'run_1' },
    ]);
    expect((await stores.audit.list(C)).map((e) => [e.type, e.actor])).toEqual([
      ['approval.approved', sam.email],
    ]);
  });

  test('an edit is re-validated by the tool schema, normalised, re-hashed and recorded from/to', async () => {
    const editedArgs = { to: '+14155550111', text: '  Hi Maria, the plumber comes at 4 instead.  ' };
    const out = await decideApproval(deps(), input({ editedArgs }));
    const to = { to: '+14155550111', text: 'Hi Maria, the plumber comes at 4 instead.' };
    expect(out.args).toEqual(to);
    expect(out.argsHash).toBe(argsHash('send_message', to));
    expect(out.edit).toEqual({ from: draft().args, to });
  });

  test('an edit equal to the draft is not recorded as an edit', async () => {
    const out = await decideApproval(
      deps(),
      input({ editedArgs: { text: draft().args.text, to: draft().args.to } }),
    );
    expect(out.edit).toBeUndefined();
    expect(out.argsHash).toBe(draft().argsHash);
  });

  test.each([
    [{ to: '+14155550111', text: '   ' }, /text/],
    [{ to: '+14155550111', text: 'x'.repeat(1601) }, /text: Too big/],
    [{ to: '+14155550111' }, /text/],
    [{ to: 12, text: 'Hi' }, /to: Invalid input: expected string/],
  ])(
    'an invalid edit is refused with the reason, and the card still waits: %j',
    async (editedArgs, reason) => {
      const err = await decideApproval(
        deps(),
        input({ editedArgs: editedArgs as Record<string, unknown> }),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).status).toBe(400);
      expect((err as Error).message).toMatch(/^The edited draft is not valid: /);
      expect((err as Error).message).toMatch(reason);
      expect(await stores.actions.get(C, 'act_1')).toEqual(draft());
      expect(stores.queue.sent).toEqual([]);
      expect(await stores.audit.list(C)).toEqual([]);
    },
  );
});

describe('deny', () => {
  test('records the reason for the agent and resumes the run', async () => {
    const out = await decideApproval(deps(), input({ decision: 'deny', reason: 'Sam will call her' }));
    expect(out).toMatchObject({ status: 'DENIED', denyReason: 'Sam will call her', decidedBy: sam.email });
    expect(stores.queue.ofType('approval.decided')).toHaveLength(1);
  });
});

describe('two people at the same moment', () => {
  test.each([
    ['approve', 'approve'],
    ['approve', 'deny'],
    ['deny', 'approve'],
  ] as const)('%s vs %s: exactly one wins, the other is told the card was decided', async (a, b) => {
    const results = await Promise.allSettled([
      decideApproval(deps(), input({ decision: a, user: sam })),
      decideApproval(deps(), input({ decision: b, user: alex, reason: 'no' })),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(ConflictError);
    expect(lost[0]!.reason.message).toMatch(/already decided \((approved|denied)\)/);
    expect(stores.queue.ofType('approval.decided')).toHaveLength(1);
    expect((await stores.conversations.get(C))?.pendingCount).toBe(0);
    expect((await stores.actions.get(C, 'act_1'))?.version).toBe(1);
  });

  test('a late decision on a decided card is a 409 with the card', async () => {
    await decideApproval(deps(), input());
    const err = (await decideApproval(deps(), input({ decision: 'deny' })).catch(
      (e: unknown) => e,
    )) as ConflictError;
    expect(err.status).toBe(409);
    expect((err.details as { action: PendingAction }).action.status).toBe('APPROVED');
  });
});
