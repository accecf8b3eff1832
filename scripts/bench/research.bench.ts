import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent } from 'aws-lambda';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoCooldownStore } from '../../shared/src/adapters/dynamo/cooldown-store';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { dynamoResearchStore } from '../../shared/src/adapters/dynamo/research-store';
import { ensureTable } from '../../shared/src/adapters/dynamo/table';
import { makeSqsClient, sqsEventQueue } from '../../shared/src/adapters/sqs-event-queue';
import { buildClickUpToolDeps } from '../../shared/src/composition/tool-deps';
import type { PlanItem } from '../../shared/src/contracts/research';
import { DEFAULT_RESEARCH_LIMITS } from '../../shared/src/domain/research/graph';
import { newId } from '../../shared/src/ids';
import type { Log } from '../../shared/src/ports/logger';
import { rulesBrain } from '../../shared/src/research/brain';
import type { ResearchDeps } from '../../shared/src/research/engine-deps';
import { clickUpTools } from '../../shared/src/tools/clickup';
import { bindAll, ToolRegistry } from '../../shared/src/tools/registry';
import { type ConsumeDeps, consumeRecord } from '../../shared/src/use-cases/consume-record';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { startClickUpEmulator } from '../emulators/clickup';
import { startDynamo } from '../local/dynamodb';
import { ensureQueues } from '../local/queues';
import { startSqs } from '../local/sqs';
import { startSqsPoller } from '../local/sqs-poller';
import { type BenchRow, percentile } from './types';

/**
 * `npm run bench research` (issue 21): a task of 8 leaves under 3 planning nodes, each leaf a ClickUp search
 * answered by the emulator after 300 ms, run through the real path — fauxqs, the concurrent local poller,
 * the worker's consumeRecord (ledger, dispatch), DynamoDB Local — against its critical path measured in the
 * same run: the longest chain of the same graph (root → planning node → leaf → aggregations) run through
 * the same queue and worker, one node after another. Also DynamoDB requests per node.
 */
const LATENCY_MS = 300;
/**
 * Rounds of (critical path, wide task), alternated so both see the same machine load; each round's ratio is
 * paired, and the spread over the rounds is printed (one median of 7 on a shared 2-core machine moved from
 * 1.22× to 1.77× between runs).
 */
const ROUNDS = Math.max(1, Number(process.env.RESEARCH_BENCH_ROUNDS ?? 15));
/**
 * Tasks run before measuring: DynamoDB Local is a JVM, and its requests got 5–10× faster over the first
 * dozen tasks of a run (JIT warm-up); one warm-up task left the first rounds measuring the emulator's start.
 */
const WARMUP_ROUNDS = 3;
const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Log;

const leaf = (key: string): PlanItem => ({
  key,
  goal: `Tasks about ${key}`,
  kind: 'read',
  tool: 'search_tasks',
  args: { query: 'heater', includeClosed: true },
  dependsOn: [],
});
const group = (key: string, n: number): PlanItem => ({
  key,
  goal: `Group ${key}`,
  kind: 'plan',
  dependsOn: [],
  subtasks: Array.from({ length: n }, (_, i) => leaf(`${key}${i + 1}`)),
});
const WIDE: PlanItem[] = [group('a', 3), group('b', 3), group('c', 2)];
const CHAIN: PlanItem[] = [group('a', 1)];

export async function run(): Promise<BenchRow[]> {
  const dynamo = await startDynamo({});
  const sqs = await startSqs();
  const clickup = await startClickUpEmulator({ token: 'pk_bench', latencyMs: LATENCY_MS });
  const stops: Array<() => Promise<unknown> | unknown> = [
    () => clickup.stop(),
    () => sqs.stop(),
    () => dynamo.stop(),
  ];
  try {
    const { raw, doc } = makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint });
    let requests = 0;
    doc.middlewareStack.add(
      (next) => async (args) => {
        requests++;
        return next(args);
      },
      { step: 'initialize', name: 'countRequests' },
    );
    const tableName = `bench-research-${Date.now()}`;
    await ensureTable(raw, tableName);
    const table = { doc, tableName };
    const sqsClient = makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });
    stops.unshift(() => sqsClient.destroy());
    const queues = await ensureQueues(sqsClient, {
      prefix: 'bench-research',
      visibilityTimeoutSeconds: 30,
      maxReceiveCount: 5,
    });
    const steps = stepTimes();
    const queue = steps.queue(sqsEventQueue(sqsClient, queues.queueUrl));
    const clock = () => new Date();
    const deps = workerDeps(table, queue, clock, clickup.env);
    // One processor per invocation, as functions/agent-worker.ts does (the poller runs invocations side by side).
    const handler = async (event: SQSEvent) =>
      processPartialResponse(
        event,
        (r: SQSEvent['Records'][number]) =>
          steps.handle(r.body, () =>
            consumeRecord(deps, { body: r.body, messageId: r.messageId, receiveCount: 1 }),
          ),
        new BatchProcessor(EventType.SQS),
        { throwOnFullBatchFailure: false },
      );
    const poller = startSqsPoller({
      client: sqsClient,
      queueUrl: queues.queueUrl,
      queueArn: queues.queueArn,
      handler: async () => handler,
    });
    stops.unshift(() => poller.stop());
    const store = dynamoResearchStore({
      doc: makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint }).doc,
      tableName,
    });
    await deps.conversations.create({
      id: 'c_bench',
      title: 'bench',
      source: 'chat',
      preview: '',
      createdAt: clock().toISOString(),
      updatedAt: clock().toISOString(),
      lastMessageAt: clock().toISOString(),
      createdBy: 'bench',
      pendingCount: 0,
      readBy: {},
    });

    const runTask = async (plan: PlanItem[]) => {
      const before = requests;
      const t0 = performance.now();
      // The end is the task's last write, its message in the conversation: awaited in-process rather than
      // polled, so no polling loads DynamoDB Local while the worker runs (it ran every 10 ms before).
      const taskId = newId('rt_');
      const finished = new Promise<void>((ok) => deps.waiters.set(`m_research_done_${taskId}`, ok));
      const task = await startResearch(
        { ...deps.research, mode: 'rules' },
        {
          goal: 'bench',
          conversationId: 'c_bench',
          user: { id: 'bench' },
          plan,
          reviewedBy: 'bench',
          taskId,
        },
      );
      await Promise.race([
        finished,
        new Promise((_, fail) => setTimeout(() => fail(new Error('bench task took over 60 s')), 60_000)),
      ]);
      const ms = performance.now() - t0;
      const g = await store.load(task.id);
      if (g?.task.status !== 'done' || g.task.degraded)
        throw new Error(`bench task ended ${g?.task.status}: ${g?.task.error ?? 'degraded'}`);
      return { ms, nodes: g.nodes.length, requests: requests - before, taskId: task.id };
    };

    for (let i = 0; i < WARMUP_ROUNDS; i++) {
      await runTask(CHAIN);
      await runTask(WIDE);
    }
    steps.reset();
    const wide: number[] = [];
    const chain: number[] = [];
    const perNode = { wide: 0, chain: 0 };
    const wideTasks = new Set<string>();
    for (let i = 0; i < ROUNDS; i++) {
      const c = await runTask(CHAIN);
      chain.push(c.ms);
      perNode.chain = c.requests / c.nodes;
      const w = await runTask(WIDE);
      wide.push(w.ms);
      wideTasks.add(w.taskId);
      perNode.wide = w.requests / w.nodes;
    }
    return [...rows(wide, chain, perNode), ...steps.rows(wideTasks)];
  } finally {
    for (const s of stops) await Promise.resolve(s()).catch(() => {});
  }
}

const med = (xs: number[]) => percentile(xs, 50);
const range = (xs: number[], lo: number, hi: number) =>
  `${percentile(xs, lo).toFixed(2)}–${percentile(xs, hi).toFixed(2)}×`;

/** The medians, and each round's own ratio (wide ÷ the critical path just before it) with its spread. */
function rows(wide: number[], chain: number[], perNode: { wide: number; chain: number }): BenchRow[] {
  const wall = med(wide);
  const critical = med(chain);
  const paired = wide.map((w, i) => w / (chain[i] as number));
  const within = paired.filter((r) => r <= 1.5).length;
  return [
    {
      name: `wall time: 8 leaves under 3 planning nodes (median of ${ROUNDS})`,
      value: wall,
      unit: 'ms',
      baseline: critical,
      ratio: wall / critical,
      target: '≤ 1.5× critical path',
    },
    {
      name: `paired ratio per round: median; middle half ${range(paired, 25, 75)}, all ${range(paired, 0, 100)}; ${within} of ${ROUNDS} rounds ≤ 1.5×`,
      value: med(paired),
      unit: '×',
      target: '≤ 1.5×',
    },
    {
      name: `critical path: root → plan → 1 leaf, same queue and worker (median; ${Math.min(...chain).toFixed(0)}–${Math.max(...chain).toFixed(0)} ms)`,
      value: critical,
      unit: 'ms',
    },
    { name: 'sum of the 8 leaves run one after another (300 ms each)', value: 8 * LATENCY_MS, unit: 'ms' },
    {
      name: 'DynamoDB requests per node, wide task (12 nodes; baseline: the chain, 3 nodes)',
      value: perNode.wide,
      unit: 'req',
      baseline: perNode.chain,
    },
  ];
}

/**
 * Where a wide task's time goes, per step: the queue hop (sent → the worker starts it) and the step itself
 * (the worker's whole consume, ledger included), by kind of step. Measured around the queue and the handler,
 * so nothing inside the engine is instrumented.
 */
function stepTimes() {
  const sentAt = new Map<string, number>();
  const samples: { task: string; kind: string; hop: number; ms: number }[] = [];
  const kindOf = (e: { id: string; payload: { nodeId: string; step: string } }) =>
    e.payload.step === 'aggregate' ? 'aggregate' : e.payload.nodeId.split('.').length === 3 ? 'leaf' : 'plan';
  return {
    queue: (q: ReturnType<typeof sqsEventQueue>): ReturnType<typeof sqsEventQueue> => ({
      async send(e, o) {
        await q.send(e, o);
        sentAt.set(e.id, performance.now());
      },
    }),
    async handle(body: string, run: () => Promise<void>) {
      const e = JSON.parse(body) as { id: string; payload: { taskId: string; nodeId: string; step: string } };
      const start = performance.now();
      await run();
      const hop = start - (sentAt.get(e.id) ?? start);
      samples.push({ task: e.payload.taskId, kind: kindOf(e), hop, ms: performance.now() - start });
    },
    reset: () => {
      samples.length = 0;
    },
    rows(tasks: Set<string>): BenchRow[] {
      const mine = samples.filter((s) => tasks.has(s.task));
      const line = (name: string, xs: number[]): BenchRow => ({
        name: `${name} (median; p90 ${percentile(xs, 90).toFixed(0)} ms; ${xs.length} steps)`,
        value: med(xs),
        unit: 'ms',
      });
      return [
        line(
          'wide task, queue hop: sent → worker starts the step',
          mine.map((s) => s.hop),
        ),
        line(
          'wide task, plan step (claim, materialize, enqueue)',
          mine.filter((s) => s.kind === 'plan').map((s) => s.ms),
        ),
        line(
          'wide task, leaf step (300 ms tool + bookkeeping)',
          mine.filter((s) => s.kind === 'leaf').map((s) => s.ms),
        ),
        line(
          'wide task, aggregate step',
          mine.filter((s) => s.kind === 'aggregate').map((s) => s.ms),
        ),
      ];
    },
  };
}

type Table = { doc: ReturnType<typeof makeDynamoClients>['doc']; tableName: string };

/** The worker's consume path with only what a research message touches (the agent's tools are not built). */
function workerDeps(
  table: Table,
  queue: ReturnType<typeof sqsEventQueue>,
  clock: () => Date,
  env: Record<string, string>,
) {
  const clickUp = buildClickUpToolDeps({
    CLICKUP_API_BASE: env.CLICKUP_API_BASE ?? '',
    CLICKUP_API_TOKEN: env.CLICKUP_API_TOKEN,
    CLICKUP_TEAM_ID: env.CLICKUP_TEAM_ID,
    TEAM_TIMEZONE: 'America/Los_Angeles',
  });
  if (!clickUp) throw new Error('the ClickUp emulator gave no credentials');
  const registry = new ToolRegistry(bindAll(clickUpTools, clickUp));
  const waiters = new Map<string, () => void>();
  const store = dynamoConversationStore(table);
  const conversations: typeof store = {
    ...store,
    async appendMessage(m) {
      await store.appendMessage(m);
      waiters.get(m.id)?.();
    },
  };
  const research: ResearchDeps = {
    research: dynamoResearchStore(table),
    queue,
    conversations,
    brain: rulesBrain({ registry, clock, timezone: 'America/Los_Angeles' }),
    clock,
    log: silent,
    limits: DEFAULT_RESEARCH_LIMITS,
    retry: { maxAttempts: 3, baseDelaySeconds: 1 },
    leaseSeconds: 60,
  };
  return {
    ledger: dynamoEventLedger(table),
    cooldowns: dynamoCooldownStore(table),
    queue,
    log: silent,
    clock,
    cooldownSeconds: 120,
    conversations,
    research,
    waiters,
  } as unknown as ConsumeDeps & {
    conversations: typeof conversations;
    research: ResearchDeps;
    waiters: typeof waiters;
  };
}
