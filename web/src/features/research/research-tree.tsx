import { useEffect, useState } from 'react';
import type { ResearchNode, ResearchTask } from '../../../../shared/src/contracts/research';

const WORDS: Record<string, string> = {
  PENDING: 'waiting',
  READY: 'queued',
  RUNNING: 'running',
  PLAN_DONE: 'sub-steps running',
  AGGREGATING: 'summing up',
  DONE: 'done',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/** Seconds a node took, or has been running so far. */
function seconds(n: ResearchNode, now: number): string {
  if (!n.startedAt) return '';
  const end = n.finishedAt ? Date.parse(n.finishedAt) : now;
  return `${Math.max(0, (end - Date.parse(n.startedAt)) / 1000).toFixed(1)} s`;
}

/**
 * The task as a picture: each step on its own row, indented under its parent, with a bar showing when it
 * ran on the task's clock — steps that ran side by side have bars side by side. Tap a step for its result.
 */
export function ResearchTree({ task, nodes }: { task: ResearchTask; nodes: ResearchNode[] }) {
  const [now, setNow] = useState(() => Date.now());
  const running = nodes.some((n) => n.status === 'RUNNING' || n.status === 'AGGREGATING');
  useEffect(() => {
    if (!running) return;
    const t = window.setInterval(() => setNow(Date.now()), 500);
    return () => window.clearInterval(t);
  }, [running]);
  const start = Date.parse(task.createdAt);
  const end = Math.max(
    now > start && running ? now : start + 1,
    ...nodes.map((n) => Date.parse(n.finishedAt ?? n.startedAt ?? task.createdAt)),
  );
  const span = Math.max(1, end - start);
  const ordered = depthFirst(nodes);
  return (
    <ol className="research-tree" aria-label="Research steps">
      {ordered.map((n) => (
        <TreeRow key={n.id} node={n} start={start} span={span} now={now} />
      ))}
    </ol>
  );
}

function TreeRow({
  node: n,
  start,
  span,
  now,
}: {
  node: ResearchNode;
  start: number;
  span: number;
  now: number;
}) {
  const from = n.startedAt ? Date.parse(n.startedAt) : undefined;
  const to = n.finishedAt ? Date.parse(n.finishedAt) : from !== undefined ? now : undefined;
  const left = from !== undefined ? ((from - start) / span) * 100 : 0;
  const width = from !== undefined && to !== undefined ? Math.max(1.5, ((to - from) / span) * 100) : 0;
  const result = n.output?.summary ?? n.error;
  return (
    <li
      className={`tree-row depth-${Math.min(n.depth, 3)} node-${n.status.toLowerCase()}`}
      data-node-id={n.id}
    >
      <details>
        <summary className="node-summary">
          <span className="node-dot" aria-hidden="true" />
          <span className="node-goal">{n.goal}</span>
          <span className="node-meta">
            {/* A writing step is never "done" in the sense of sent: its draft waits as a card. */}
            {n.output?.proposal ? 'drafted · needs approval' : (WORDS[n.status] ?? n.status)}
            {n.startedAt ? ` · ${seconds(n, now)}` : ''}
            {n.attempts > 0 ? ` · try ${n.attempts + 1}` : ''}
          </span>
          <span className="node-track" aria-hidden="true">
            {width > 0 && (
              <span
                className="node-bar"
                style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
              />
            )}
          </span>
        </summary>
        <div className="node-detail">
          {n.tool && (
            <p className="node-tool">
              {n.tool}
              {n.args ? ` ${JSON.stringify(n.args)}` : ''}
            </p>
          )}
          {result ? (
            <pre className={n.error ? 'error-text' : undefined}>{result}</pre>
          ) : (
            <p>No result yet.</p>
          )}
          {n.context?.inputs.length ? (
            <p className="node-inputs">Used: {n.context.inputs.map((i) => i.goal).join(', ')}</p>
          ) : null}
        </div>
      </details>
    </li>
  );
}

/** Parents before their children, children in plan order. */
function depthFirst(nodes: ResearchNode[]): ResearchNode[] {
  const kids = new Map<string, ResearchNode[]>();
  for (const n of nodes) {
    const key = n.parentId ?? '';
    kids.set(key, [...(kids.get(key) ?? []), n]);
  }
  const out: ResearchNode[] = [];
  const visit = (parent: string) => {
    for (const n of (kids.get(parent) ?? []).sort((a, b) =>
      a.id.localeCompare(b.id, undefined, { numeric: true }),
    )) {
      out.push(n);
      visit(n.id);
    }
  };
  visit('');
  return out;
}
