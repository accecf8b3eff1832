import { describe, expect, test } from 'vitest';
import type { Message, PendingAction } from '../contracts/conversations';
import type { Run } from '../contracts/runs';
import { type RunUpdate, type WatchRunDeps, watchRun } from './stream-run';

/** In-memory stand-ins for the three stores the watcher reads; `tick` lets a test act between polls. */
function world() {
  const messages: Message[] = [];
  const actions: PendingAction[] = [];
  const runs: Run[] = [];
  let clock = 0;
  let onSleep: (n: number) => void = () => {};
  let sleeps = 0;
  const deps: WatchRunDeps = {
    conversations: {
      listMessages: async () =>
        [...messages].sort((a, b) => `${a.createdAt}#${a.id}`.localeCompare(`${b.createdAt}#${b.id}`)),
    } as unknown as WatchRunDeps['conversations'],
    actions: {
      listByConversation: async () => actions.map((a) => ({ ...a })),
    } as unknown as WatchRunDeps['actions'],
    runs: {
      get: async (_c: string, id: string) => runs.find((r) => r.id === id),
      findActive: async () => runs.find((r) => r.status === 'running' || r.status === 'awaiting_approval'),
    } as unknown as WatchRunDeps['runs'],
    now: () => clock,
    sleep: async (ms) => {
      clock += ms;
      onSleep(++sleeps);
    },
  };
  const msg = (id: string, role: Message['role'], at: string, runId?: string): Message => ({
    id,
    conversationId: 'c1',
    role,
    text: `${role} ${id}`,
    createdAt: at,
    author: { kind: role === 'user' ? 'user' : 'assistant', name: role },
    ...(runId ? { runId } : {}),
  });
  const run = (status: Run['status']): Run => ({
    id: 'r1',
    conversationId: 'c1',
    status,
    mode: 'rules',
    trigger: { type: 'chat.message', key: 'conv:c1', eventIds: ['e1'] },
    iteration: 1,
    nextSeq: 1,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: 't05',
    updatedAt: 't05',
  });
  const action = (version: number, status: PendingAction['status']): PendingAction => ({
    id: 'a1',
    conversationId: 'c1',
    runId: 'r1',
    tool: 'send_message',
    args: { to: '+1', text: 'hi' },
    argsHash: 'h',
    summary: 'Text +1',
    status,
    proposedBy: 'planner',
    reason: 'asked',
    review: {},
    createdAt: 't07',
    updatedAt: 't07',
    version,
  });
  return {
    deps,
    messages,
    actions,
    runs,
    msg,
    run,
    action,
    onSleep: (f: (n: number) => void) => (onSleep = f),
  };
}

async function collect(gen: AsyncGenerator<RunUpdate>) {
  const out: RunUpdate[] = [];
  for await (const u of gen) out.push(u);
  return out;
}
const describeUpdate = (u: RunUpdate) =>
  u.type === 'message'
    ? `message ${u.message.id}`
    : u.type === 'action'
      ? `action v${u.action.version} ${u.action.status}`
      : `status ${u.status}`;

describe('watchRun', () => {
  test('relays only the answer to this turn, re-sends a card when it changes, and stops once the run pauses', async () => {
    const w = world();
    w.messages.push(w.msg('m0', 'assistant', 't00'), w.msg('m1', 'user', 't04'));
    w.onSleep((n) => {
      if (n === 1) {
        w.runs.push(w.run('running'));
        w.messages.push(w.msg('m2', 'tool', 't06', 'r1'), w.msg('m3', 'inbound', 't06'));
      }
      if (n === 2) w.actions.push(w.action(1, 'PENDING'));
      if (n === 3) {
        w.actions[0] = w.action(2, 'PENDING');
        // Written in the same instant the run pauses: the final pass must still pick it up.
        w.runs[0] = w.run('awaiting_approval');
      }
    });
    // The status flip is read after the messages in the same poll, so the last message lands in the final pass.
    const original = w.deps.runs.get;
    w.deps.runs.get = async (c, id) => {
      const r = await original(c, id);
      if (r?.status === 'awaiting_approval' && !w.messages.some((m) => m.id === 'm4')) {
        w.messages.push(w.msg('m4', 'assistant', 't08', 'r1'));
      }
      return r;
    };
    const updates = await collect(
      watchRun(w.deps, { conversationId: 'c1', afterMessageId: 'm1', timeoutMs: 10_000, pollMs: 100 }),
    );
    expect(updates.map(describeUpdate)).toEqual([
      'status queued',
      'message m2',
      'status running',
      'action v1 PENDING',
      'action v2 PENDING',
      'status awaiting_approval',
      'message m4',
    ]);
  });

  test('reports a timeout when no run shows up before the deadline', async () => {
    const w = world();
    w.messages.push(w.msg('m1', 'user', 't04'));
    const updates = await collect(
      watchRun(w.deps, { conversationId: 'c1', afterMessageId: 'm1', timeoutMs: 1000, pollMs: 300 }),
    );
    expect(updates.map(describeUpdate)).toEqual(['status queued', 'status timeout']);
  });

  test('a run that finishes between polls still has its messages relayed', async () => {
    const w = world();
    w.messages.push(w.msg('m1', 'user', 't04'));
    w.onSleep((n) => {
      if (n === 1) {
        w.runs.push(w.run('completed'));
        w.messages.push(w.msg('m2', 'assistant', 't06', 'r1'));
      }
    });
    const updates = await collect(
      watchRun(w.deps, { conversationId: 'c1', afterMessageId: 'm1', timeoutMs: 10_000, pollMs: 100 }),
    );
    expect(updates.map(describeUpdate)).toEqual(['status queued', 'message m2', 'status completed']);
  });
});
