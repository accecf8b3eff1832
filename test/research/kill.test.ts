import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureQueues } from '../../scripts/local/queues';
import { type RunningSqs, startSqs } from '../../scripts/local/sqs';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoResearchStore } from '../../shared/src/adapters/dynamo/research-store';
import { makeSqsClient, sqsEventQueue } from '../../shared/src/adapters/sqs-event-queue';
import type { PlanItem } from '../../shared/src/contracts/research';
import { DEFAULT_RESEARCH_LIMITS } from '../../shared/src/domain/research/graph';
import { startResearch } from '../../shared/src/use-cases/start-research';
import { freshTable } from '../helpers';
import { readStep, silentLog } from './harness';

/**
 * Issue 21: "a crash during fan-in loses and repeats nothing". The worker is a real OS process
 * (`kill-worker.ts`: the local SQS poller on fauxqs, the worker's consume path and the research engine on DynamoDB
 * Local) and is SIGKILLed right after a leaf's result is written and before its parent counts it; a new
 * worker process then finishes the task from what the first left in the table and on the queue.
 * (`crash.test.ts` sweeps every write of a run with simulated crashes; this one is the real kill.)
 */
const read = readStep;
/** r.2.2 (email) is the last child of r.2 to finish: its countdown is r.2's fan-in. */
const PLAN: PlanItem[] = [
  read('who', 'search_contacts', { query: 'Maria Lopez' }),
  {
    key: 'comms',
    goal: 'Communications',
    kind: 'plan',
    dependsOn: ['who'],
    subtasks: [
      read('calls', 'list_calls', { participant: '{{phone}}' }),
      read('email', 'search_emails', { query: '{{email}}' }, ['calls']),
    ],
  },
  read('tasks', 'search_tasks', { query: 'Maria Lopez' }, ['comms']),
];

let sqs: RunningSqs;
let env: Record<string, string>;
let t: Awaited<ReturnType<typeof freshTable>>;
const children: ChildProcess[] = [];
beforeAll(async () => {
  t = await freshTable('kill');
  sqs = await startSqs();
  const client = makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint });
  // A short visibility timeout: the killed worker's message comes back in 2 s, as SQS would after its own.
  const q = await ensureQueues(client, { prefix: 'kill', visibilityTimeoutSeconds: 2, maxReceiveCount: 10 });
  const logFile = join(mkdtempSync(join(tmpdir(), 'research-kill-')), 'work.log');
  writeFileSync(logFile, '');
  env = {
    DYNAMO_ENDPOINT: t.endpoint,
    TABLE_NAME: t.tableName,
    SQS_ENDPOINT: sqs.endpoint,
    QUEUE_URL: q.queueUrl,
    QUEUE_ARN: q.queueArn,
    LOG_FILE: logFile,
  };
}, 30_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await sqs?.stop();
});

/** A worker process; resolves once it printed `line` (or rejects when it exits first or takes too long). */
function worker(extra: Record<string, string>, line: string) {
  // Node itself with tsx as a loader, not the tsx CLI: the CLI runs the script in a child process of its
  // own, so SIGKILL would stop only the CLI and leave the worker running (and polling) as an orphan.
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('test/research/kill-worker.ts')], {
    env: { ...process.env, ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += String(d);
  });
  const seen = new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "${line}" in 40 s; stderr: ${err}`)), 40_000);
    child.stdout?.on('data', (d) => {
      out += String(d);
      if (out.includes(line)) {
        clearTimeout(timer);
        ok();
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`worker exited (${code ?? signal}) before "${line}"; stderr: ${err}`));
    });
  });
  return { child, seen };
}

const exited = (c: ChildProcess) =>
  new Promise<NodeJS.Signals | number | null>((ok) => {
    if (c.exitCode !== null || c.signalCode !== null) ok(c.signalCode ?? c.exitCode);
    else c.on('exit', (code, signal) => ok(signal ?? code));
  });

it('SIGKILL between a leaf’s result and its parent’s readiness: a new worker finishes, nothing lost or repeated', async () => {
  const research = dynamoResearchStore(t);
  const conversations = dynamoConversationStore(t);
  const at = new Date().toISOString();
  await conversations.create({
    ...{ id: 'c1', title: 'Chat', source: 'chat', preview: '', createdAt: at, updatedAt: at },
    ...{ lastMessageAt: at, createdBy: 'u_sam', pendingCount: 0, readBy: {} },
  });
  const queue = sqsEventQueue(
    makeSqsClient({ region: 'us-east-1', endpoint: sqs.endpoint }),
    env.QUEUE_URL as string,
  );
  const first = worker({ KILL_AFTER_RESULT: 'r.2.2' }, 'KILL_POINT r.2.2');
  const task = await startResearch(
    {
      research,
      queue,
      conversations,
      clock: () => new Date(),
      limits: DEFAULT_RESEARCH_LIMITS,
      log: silentLog,
      mode: 'rules',
    },
    {
      goal: 'summarise Maria Lopez',
      conversationId: 'c1',
      user: { id: 'u_sam' },
      plan: PLAN,
      reviewedBy: 'Sam',
    },
  );
  await first.seen;
  first.child.kill('SIGKILL');
  expect(await exited(first.child)).toBe('SIGKILL');

  // Killed mid fan-in: the leaf's result is written, its parent has not counted it.
  const killed = await research.load(task.id);
  const node = (id: string) => killed?.nodes.find((n) => n.id === id);
  expect(node('r.2.2')?.status).toBe('DONE');
  expect(node('r.2')?.status).toBe('PLAN_DONE');
  expect(node('r.2')?.pendingChildren).toBe(1);

  const second = worker({}, 'WORKER_READY');
  await second.seen;
  // Finished means the task is done AND its message is in the conversation: the task's status is written
  // first, so killing the worker as soon as it reads "done" can land between the two (the message then comes
  // with the step's redelivery, to a worker this test no longer runs).
  const finished = async () =>
    (await research.getTask(task.id))?.status === 'done' &&
    (await conversations.listMessages('c1')).some((m) => m.id === `m_research_done_${task.id}`);
  const deadline = Date.now() + 40_000;
  while (!(await finished()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  second.child.kill('SIGKILL');
  await exited(second.child);

  const g = await research.load(task.id);
  expect(g?.task.status).toBe('done');
  expect(g?.task.degraded).toBe(false);
  expect(g?.nodes.every((n) => n.status === 'DONE')).toBe(true);
  // Every leaf's tool ran once and every parent aggregated once, across the two processes.
  const work = readFileSync(env.LOG_FILE as string, 'utf8')
    .trim()
    .split('\n')
    .sort();
  expect(work).toEqual(
    [
      'aggregate r',
      'aggregate r.2',
      'tool list_calls r.2.1',
      'tool search_contacts r.1',
      'tool search_emails r.2.2',
      'tool search_tasks r.3',
    ].sort(),
  );
  const done = (await conversations.listMessages('c1')).filter((m) => m.id === `m_research_done_${task.id}`);
  expect(done).toHaveLength(1);
}, 120_000);
