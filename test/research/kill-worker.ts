/**
 * A research worker as its own OS process, for `kill.test.ts`: the local SQS poller (the stand-in for Lambda's
 * event source mapping) on fauxqs, the worker's consume path (`consumeRecord` → `processEvent` → the research
 * engine) and its stores on DynamoDB Local — the same code the worker runs for `research.node` messages.
 * Configured by environment:
 *
 *   DYNAMO_ENDPOINT, TABLE_NAME, SQS_ENDPOINT, QUEUE_URL, QUEUE_ARN  where the real parts are;
 *   LOG_FILE    every tool run and aggregation is appended here (`tool <name> <node>`, `aggregate <node>`), so
 *               the test counts work across processes;
 *   KILL_AFTER_RESULT  a node id: once that node's result is written, the worker prints `KILL_POINT <id>` and
 *               stops making progress, so the test can SIGKILL it right between the leaf's result and its
 *               parent's readiness (nothing is caught or cleaned up: the process just dies).
 */
import { appendFileSync } from 'node:fs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { startSqsPoller } from '../../scripts/local/sqs-poller';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoCooldownStore } from '../../shared/src/adapters/dynamo/cooldown-store';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { dynamoResearchStore } from '../../shared/src/adapters/dynamo/research-store';
import { makeSqsClient, sqsEventQueue } from '../../shared/src/adapters/sqs-event-queue';
import { DEFAULT_RESEARCH_LIMITS } from '../../shared/src/domain/research/graph';
import type { Log } from '../../shared/src/ports/logger';
import { rulesBrain } from '../../shared/src/research/brain';
import type { ResearchDeps } from '../../shared/src/research/engine-deps';
import { type BoundTool, ToolRegistry } from '../../shared/src/tools/registry';
import { type ConsumeDeps, consumeRecord } from '../../shared/src/use-cases/consume-record';

const env = z
  .object({
    DYNAMO_ENDPOINT: z.string().url(),
    TABLE_NAME: z.string().min(1),
    SQS_ENDPOINT: z.string().url(),
    QUEUE_URL: z.string().url(),
    QUEUE_ARN: z.string().min(1),
    LOG_FILE: z.string().min(1),
    KILL_AFTER_RESULT: z.string().optional(),
  })
  .parse(process.env);

/** Set at the kill point: the process only waits to be killed. */
let dying = false;
const note = (line: string) => appendFileSync(env.LOG_FILE, `${line}\n`);
const silent: Log = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Log;

const ANSWERS: Record<string, unknown> = {
  search_contacts: {
    count: 1,
    contacts: [{ name: 'Maria Lopez', phones: ['+14155550111'], emails: ['maria@example.com'] }],
  },
  list_calls: [{ createdAt: '2026-11-02T09:00:00Z', direction: 'incoming', status: 'completed' }],
  search_emails: {
    count: 1,
    emails: [{ date: '2026-10-30', from: 'maria@example.com', subject: 'Renewal' }],
  },
  search_tasks: { tasks: [{ name: 'Fix heater at 12 Oak St', status: { status: 'open' } }] },
};
const tools: BoundTool[] = Object.entries(ANSWERS).map(([name, answer]) => ({
  name,
  description: name,
  kind: 'read' as const,
  group: 'test',
  input: z.looseObject({}),
  summarize: () => name,
  async run(_args, ctx) {
    note(`tool ${name} ${ctx.runId.split(':').at(-1)}`);
    return answer;
  },
}));

const { doc } = makeDynamoClients({ region: 'us-east-1', endpoint: env.DYNAMO_ENDPOINT });
const table = { doc, tableName: env.TABLE_NAME };
const sqs = makeSqsClient({ region: 'us-east-1', endpoint: env.SQS_ENDPOINT });
const clock = () => new Date();
const brain = rulesBrain({ registry: new ToolRegistry(tools), clock, timezone: 'America/Los_Angeles' });
const deps: ResearchDeps = {
  research: dynamoResearchStore(table),
  queue: sqsEventQueue(sqs, env.QUEUE_URL),
  conversations: dynamoConversationStore(table),
  brain: {
    ...brain,
    mode: brain.mode,
    async aggregate(input) {
      note(`aggregate ${input.node.id}`);
      return brain.aggregate(input);
    },
  },
  clock,
  log: silent,
  limits: DEFAULT_RESEARCH_LIMITS,
  retry: { maxAttempts: 3, baseDelaySeconds: 1 },
  // Far longer than any step on a loaded CI box: a live worker's lease never runs out under it. (With a 2 s
  // lease, a step slower than 2 s could have its message come back — the queue's visibility timeout is 2 s —
  // and be taken over while its worker still ran, running a tool twice.) A copy that comes back while the
  // node is claimed waits its turn (NodeBusy); the killed worker's node is DONE, so no lease is in the way.
  leaseSeconds: 60,
  faults: {
    async afterResult(node) {
      if (node.id !== env.KILL_AFTER_RESULT) return;
      dying = true;
      process.stdout.write(`KILL_POINT ${node.id}\n`);
      // Hold this invocation here until the test kills the process: its fan-in must never happen in it.
      await new Promise(() => {});
    },
  },
};

/** What the worker's consume path touches for a research message (the agent's own deps are never reached). */
const consumeDeps = {
  ledger: dynamoEventLedger(table),
  cooldowns: dynamoCooldownStore(table),
  queue: deps.queue,
  log: silent,
  clock,
  cooldownSeconds: 120,
  research: deps,
} as unknown as ConsumeDeps;

/** One SQS batch as functions/agent-worker.ts runs it: each record consumed; a throw leaves it on the queue. */
async function handle(event: SQSEvent): Promise<SQSBatchResponse> {
  // Past the kill point nothing more is done here, even if the test is slow to kill: a message coming back
  // meanwhile (the killed step's own, after its visibility timeout) must be the next worker's.
  if (dying) await new Promise(() => {});
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (r) => {
      try {
        await consumeRecord(consumeDeps, { body: r.body, messageId: r.messageId, receiveCount: 1 });
      } catch {
        failures.push({ itemIdentifier: r.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}

startSqsPoller({
  client: sqs,
  queueUrl: env.QUEUE_URL,
  queueArn: env.QUEUE_ARN,
  handler: async () => handle,
});
process.stdout.write('WORKER_READY\n');
