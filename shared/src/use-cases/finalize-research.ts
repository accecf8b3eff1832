import type { ResearchTask } from '../contracts/research';
import { reportMarkdown, reportPath } from '../domain/research/describe';
import type { ResearchDeps } from '../research/engine-deps';
import { queueTextUpdate } from '../research/text-updates';

/** DynamoDB items stop at 400 KB; the full report is in the memory repository, the task keeps a copy. */
const REPORT_COPY_CHARS = 60_000;

/**
 * The root finished (done, or failed when it could not even be planned): the report is written by system
 * code to `reports/…md` in the memory repository (agent tools cannot write there), the task ends, and the
 * conversation gets one message linking it. Every step is idempotent — the same path and content, a
 * conditional task update, a message with a fixed id and time — so a redelivery repeats nothing visible.
 */
export async function finalizeResearch(deps: Omit<ResearchDeps, 'brain'>, taskId: string): Promise<void> {
  const graph = await deps.research.load(taskId);
  const root = graph?.nodes.find((n) => !n.parentId);
  if (!graph || !root?.finishedAt) return;
  const { task, nodes } = graph;
  const report = reportMarkdown(task, root, nodes);
  const path = reportPath(task);
  const saved = await saveReport(deps, task, path, report);
  const failed = root.status === 'FAILED';
  const degraded = root.degraded === true || nodes.some((n) => n.status === 'FAILED');
  await deps.research.updateTask(
    taskId,
    {
      status: failed ? 'failed' : 'done',
      finishedAt: root.finishedAt,
      updatedAt: root.finishedAt,
      report: report.slice(0, REPORT_COPY_CHARS),
      degraded,
      ...(saved ? { reportPath: path } : {}),
      ...(failed && root.error ? { error: root.error } : {}),
    },
    ['running', 'planning'],
  );
  const text = failed
    ? `Research could not run: ${root.error ?? 'the plan failed'}`
    : `Research finished: ${task.goal}${degraded ? ' (some steps failed; the report says which)' : ''}.${
        saved ? ` Report saved to ${path}.` : ''
      }`;
  await deps.conversations.appendMessage({
    id: `m_research_done_${taskId}`,
    conversationId: task.conversationId,
    role: 'assistant',
    text,
    createdAt: root.finishedAt,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
    research: { taskId, ...(saved ? { reportPath: path } : {}) },
  });
  // Asked by text: the end is texted too (after the message, so a crash before it repeats only this).
  await queueTextUpdate(deps, task, root.finishedAt);
  await deps
    .publish?.({ type: 'research.node', taskId, nodeId: root.id, status: root.status })
    .catch(() => {});
}

async function saveReport(
  deps: Omit<ResearchDeps, 'brain'>,
  task: ResearchTask,
  path: string,
  report: string,
) {
  const ws = await deps.workspace?.().catch(() => undefined);
  if (!ws) return false;
  try {
    await ws.sync();
    await ws.writeFile(path, report);
    // Committed is enough: an unpushed commit is pushed by the next commitAndPush of any turn.
    await ws.commitAndPush({ conversationId: task.conversationId, summary: `research report: ${task.goal}` });
    return true;
  } catch (e) {
    deps.log.warn('research.report_not_saved', { taskId: task.id, error: String(e) });
    return false;
  }
}
