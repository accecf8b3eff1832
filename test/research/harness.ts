import { z } from 'zod';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoResearchStore } from '../../shared/src/adapters/dynamo/research-store';
import type { EventEnvelope, EventOf } from '../../shared/src/contracts/events';
import type { PlanItem } from '../../shared/src/contracts/research';
import { DEFAULT_RESEARCH_LIMITS, type ResearchLimits } from '../../shared/src/domain/research/graph';
import type { Log } from '../../shared/src/ports/logger';
import type { Workspace } from '../../shared/src/ports/workspace';
import { type ResearchBrain, rulesBrain } from '../../shared/src/research/brain';
import type { ResearchDeps } from '../../shared/src/research/engine-deps';
import { type BoundTool, ToolRegistry } from '../../shared/src/tools/registry';
import { runResearchNode } from '../../shared/src/use-cases/run-research-node';
import { freshTable } from '../helpers';

/** A read step of a plan given up front (the research tests' plans are built from these). */
export const readStep = (
  key: string,
  tool: string,
  args: PlanItem['args'] = {},
  dependsOn: string[] = [],
): PlanItem => ({ key, goal: `Step ${key}`, kind: 'read', tool, args, dependsOn });

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Log;

/** Read tools with canned answers; `calls` counts each tool's runs, `fail` makes a tool throw. */
export function fakeTools(opts: { latencyMs?: number } = {}) {
  const calls = new Map<string, number>();
  const fail = new Map<string, { times: number; error: () => Error }>();
  const answers: Record<string, unknown> = {
    search_contacts: {
      count: 1,
      contacts: [
        { name: 'Maria Lopez', phones: ['+14155550111'], emails: ['maria@example.com'], internal: false },
      ],
    },
    get_contact_sms_history: { texts: [{ at: '2026-11-01T10:00:00Z', text: 'The heater is broken again' }] },
    list_messages: [
      { createdAt: '2026-11-01T10:00:00Z', direction: 'incoming', text: 'The heater is broken again' },
    ],
    list_calls: [{ createdAt: '2026-11-02T09:00:00Z', direction: 'incoming', status: 'completed' }],
    search_emails: {
      count: 1,
      emails: [{ date: '2026-10-30', from: 'maria@example.com', subject: 'Lease renewal' }],
    },
    search_tasks: { tasks: [{ name: 'Fix heater at 12 Oak St', status: { status: 'open' } }] },
    list_calendar_events: { events: [{ start: '2026-11-20T15:00:00Z', summary: 'Heater repair visit' }] },
    search_conversations: { hits: [{ title: 'Maria Lopez', snippet: 'heater' }] },
    search_files: { hits: [] },
  };
  const tools: BoundTool[] = Object.entries(answers).map(([name, answer]) => ({
    name,
    description: name,
    kind: 'read' as const,
    group: 'test',
    input: z.looseObject({}),
    summarize: () => name,
    async run(args: Record<string, unknown>) {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
      const f = fail.get(name);
      if (f && f.times > 0) {
        f.times--;
        throw f.error();
      }
      return name === 'search_contacts' && String(args.query).includes('Nobody')
        ? { count: 0, contacts: [] }
        : answer;
    },
  }));
  tools.push({
    name: 'send_message',
    description: 'write',
    kind: 'write',
    group: 'test',
    input: z.looseObject({}),
    summarize: () => 'send',
    async run() {
      calls.set('send_message', (calls.get('send_message') ?? 0) + 1);
      return {};
    },
  });
  return { registry: new ToolRegistry(tools), calls, fail };
}

/** A memory workspace that keeps files in a map (the git adapter has its own tests). */
export function memoryWorkspace() {
  const files = new Map<string, string>();
  let commits = 0;
  const ws = {
    async sync() {
      return { outcome: 'up-to-date', head: '', conflicts: [], ms: 0 };
    },
    async writeFile(path: string, content: string) {
      const created = !files.has(path);
      files.set(path, content);
      return { path, bytes: content.length, created };
    },
    async commitAndPush() {
      commits++;
      return {
        changes: [],
        pushed: true,
        attempts: 1,
        conflicts: [],
        timings: { commitMs: 0, pushMs: 0, mergeMs: 0, totalMs: 0 },
      };
    },
  } as unknown as Workspace;
  return { ws, files, commits: () => commits };
}

export interface Queued {
  event: EventOf<'research.node'>;
}

/**
 * The engine over DynamoDB Local with an in-memory queue the test drains: each round takes every message
 * present and runs them concurrently (as parallel Lambda invocations would), and a message whose handler throws
 * comes back (as SQS redelivers it).
 */
export async function researchHarness(
  opts: {
    limits?: Partial<ResearchLimits>;
    brain?: (d: ResearchDeps, tools: ReturnType<typeof fakeTools>) => ResearchBrain;
    latencyMs?: number;
  } = {},
) {
  const t = await freshTable('research');
  const table = { doc: t.doc, tableName: t.tableName };
  const queue: EventEnvelope[] = [];
  let now = new Date('2026-11-24T09:00:00Z');
  const clock = () => new Date(now);
  const tools = fakeTools(opts.latencyMs ? { latencyMs: opts.latencyMs } : {});
  const workspace = memoryWorkspace();
  const conversations = dynamoConversationStore(table);
  const deps: ResearchDeps = {
    research: dynamoResearchStore(table),
    queue: { send: async (e) => void queue.push(e) },
    conversations,
    brain: undefined as unknown as ResearchBrain,
    clock,
    log: silentLog,
    limits: { ...DEFAULT_RESEARCH_LIMITS, ...opts.limits },
    retry: { maxAttempts: 3, baseDelaySeconds: 1 },
    leaseSeconds: 60,
    workspace: async () => workspace.ws,
  };
  deps.brain = opts.brain
    ? opts.brain(deps, tools)
    : rulesBrain({ registry: tools.registry, clock, timezone: 'America/Los_Angeles' });
  await conversations.create({
    id: 'c1',
    title: 'Chat',
    source: 'chat',
    preview: '',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    lastMessageAt: now.toISOString(),
    createdBy: 'u_sam',
    pendingCount: 0,
    readBy: {},
  });
  const handled: string[] = [];
  /** What each handled message did, in order: a redelivered copy can be handled again as a no-op. */
  const outcomes: { id: string; outcome: string }[] = [];
  const crashes: string[] = [];
  let redelivering = false;

  // No event ledger: the worker runs a node's run and aggregate steps outside it (process-event), so every
  // copy of a message, re-sent or redelivered, is handled here too and must find nothing new to do.
  async function deliver(e: EventEnvelope) {
    try {
      const out = await runResearchNode(deps, e as EventOf<'research.node'>);
      handled.push(e.id);
      outcomes.push({ id: e.id, outcome: out.outcome });
    } catch (err) {
      crashes.push(`${e.id}: ${String(err)}`);
      queue.push(e);
      redelivering = true;
    }
  }

  async function drain(maxRounds = 50) {
    for (let round = 0; round < maxRounds && queue.length; round++) {
      const batch = queue.splice(0, queue.length);
      await Promise.all(batch.map(deliver));
      // A failed message comes back after the visibility timeout: by then a dead worker's lease has run out.
      // The clock moves once the round is over, never while other workers of the round still hold a live
      // lease (moving it mid-round let a second copy of a message take a lease its live owner still held).
      if (redelivering) now = new Date(now.getTime() + (deps.leaseSeconds + 1) * 1000);
      redelivering = false;
    }
  }
  return {
    deps,
    table,
    tools,
    workspace,
    queue,
    handled,
    outcomes,
    crashes,
    drain,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
    user: { id: 'u_sam', name: 'Sam' },
    startDeps: () => ({ ...deps, mode: 'rules' as const }),
    messages: () => conversations.listMessages('c1', { limit: 100 }),
  };
}
