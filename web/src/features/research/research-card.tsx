import { useCallback, useEffect, useState } from 'react';
import type { PlanItem, ResearchView } from '../../../../shared/src/contracts/research';
import { describeError } from '../../lib/api';
import { useLiveStatus, useLiveUpdates } from '../../lib/live';
import { useApi } from '../auth/auth-context';
import { PlanEditor } from './plan-editor';
import { ReportView } from './report-view';
import { ResearchTree } from './research-tree';

const ACTIVE = new Set(['planning', 'running']);
const STATUS_WORDS: Record<string, string> = {
  planning: 'Planning…',
  review: 'Waiting for your review',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * A research task in its conversation (issue 21): the plan to review when it is large, the live tree while
 * it runs (each step's status and timing; tap a step for its result), and the report at the end. Updates
 * come over the live channel; without it the card polls while the task is active.
 */
export function ResearchCard({ taskId }: { taskId: string }) {
  const api = useApi();
  const { view, error, act } = useResearchView(taskId);
  if (!view) return <article className="research-card">{error ?? 'Loading the research…'}</article>;
  const { task, nodes } = view;
  const leaves = nodes.filter((n) => n.kind !== 'plan');
  const finished = leaves.filter((n) => ['DONE', 'FAILED', 'CANCELLED'].includes(n.status)).length;
  return (
    <article className="research-card" data-task-id={task.id} data-status={task.status}>
      <header>
        <span className="research-label">Research</span>
        <h2>{task.goal}</h2>
        <p className={`research-status status-${task.status}`}>
          {STATUS_WORDS[task.status] ?? task.status}
          {task.status !== 'review' && leaves.length > 0 && ` · ${finished} of ${leaves.length} steps`}
          {task.degraded && ' · some steps failed'}
          {` · ${task.mode} mode`}
        </p>
      </header>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {task.status === 'review' && task.draft && (
        <PlanEditor
          plan={task.draft}
          reason={task.reviewReason}
          onApprove={(plan: PlanItem[]) => act(() => api.approveResearch(task.id, plan))}
          onSave={(plan) => act(() => api.editResearchPlan(task.id, plan))}
          onReplan={(plan, note) => act(() => api.replanResearch(task.id, plan, note))}
          onCancel={() => act(() => api.cancelResearch(task.id))}
        />
      )}
      {task.status !== 'review' && nodes.length > 1 && <ResearchTree task={task} nodes={nodes} />}
      {ACTIVE.has(task.status) && (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => act(() => api.cancelResearch(task.id))}
        >
          Cancel research
        </button>
      )}
      {task.report && task.status === 'done' && <ReportView markdown={task.report} path={task.reportPath} />}
      {task.status === 'failed' && task.error && <p className="error-text">{task.error}</p>}
    </article>
  );
}

/**
 * The task and its nodes, reloaded on each `research.node` update and polled while the task is active
 * (slowly when the live channel is up, as a fallback otherwise). `act` runs a person's change and shows
 * the view it returns.
 */
function useResearchView(taskId: string) {
  const api = useApi();
  const live = useLiveStatus();
  const [view, setView] = useState<ResearchView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    () =>
      api
        .research(taskId)
        .then((v) => {
          setView(v);
          setError(null);
        })
        .catch((e) => setError(describeError(e))),
    [api, taskId],
  );
  useEffect(() => {
    void load();
  }, [load]);
  useLiveUpdates((u) => {
    if (u.type === 'research.node' && u.taskId === taskId) void load();
  });
  const status = view?.task.status;
  useEffect(() => {
    if (!status || !ACTIVE.has(status)) return;
    const t = window.setInterval(() => void load(), live === 'live' ? 5_000 : 1_200);
    return () => window.clearInterval(t);
  }, [status, live, load]);
  const act = async (f: () => Promise<ResearchView | undefined>) => {
    try {
      const v = await f();
      if (v) setView(v);
      setError(null);
    } catch (e) {
      setError(describeError(e));
    }
  };
  return { view, error, act };
}
