import { useState } from 'react';
import type { NodeKind, PlanItem } from '../../../../shared/src/contracts/research';

const KINDS: NodeKind[] = ['read', 'plan', 'compute', 'web', 'write'];
const KIND_WORDS: Record<NodeKind, string> = {
  read: 'Look up',
  plan: 'Group',
  compute: 'Calculate',
  web: 'Web',
  // A writing step only drafts: its write waits as an approval card in the conversation.
  write: 'Draft for approval',
};

interface Props {
  plan: PlanItem[];
  reason?: string | undefined;
  onApprove(plan: PlanItem[]): Promise<void>;
  onSave(plan: PlanItem[]): Promise<void>;
  onReplan(plan: PlanItem[], note?: string): Promise<void>;
  onCancel(): Promise<void>;
}

/** Updates the item at `path` (indexes down the sub-steps) in an immutable copy of the plan. */
function update(plan: PlanItem[], path: number[], f: (i: PlanItem) => PlanItem | undefined): PlanItem[] {
  const [head, ...rest] = path;
  return plan.flatMap((item, i) => {
    if (i !== head) return [item];
    if (!rest.length) {
      const next = f(item);
      return next ? [next] : [];
    }
    return [{ ...item, subtasks: update(item.subtasks ?? [], rest, f) }];
  });
}

/** Steps that named a removed sibling no longer wait for it. */
function dropDangling(plan: PlanItem[]): PlanItem[] {
  const keys = new Set(plan.map((i) => i.key));
  return plan.map((i) => ({
    ...i,
    dependsOn: i.dependsOn.filter((d) => keys.has(d)),
    ...(i.subtasks ? { subtasks: dropDangling(i.subtasks) } : {}),
  }));
}

let added = 0;

/**
 * The plan a person reviews before a large task runs: remove a step, change what it looks for, add one,
 * then approve (it runs exactly as shown) or ask the planner to re-plan from these edits.
 */
export function PlanEditor({ plan: initial, reason, onApprove, onSave, onReplan, onCancel }: Props) {
  const [plan, setPlan] = useState(initial);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const run = (f: () => Promise<void>) => async () => {
    setBusy(true);
    try {
      await f();
    } finally {
      setBusy(false);
    }
  };
  const change = (path: number[], f: (i: PlanItem) => PlanItem | undefined) =>
    setPlan((p) => dropDangling(update(p, path, f)));
  const addStep = () =>
    setPlan((p) => [
      ...p,
      {
        key: `added${++added}`,
        goal: 'Search conversations for …',
        kind: 'read',
        tool: 'search_conversations',
        args: { query: '' },
        dependsOn: [],
      },
    ]);
  return (
    <section className="plan-editor" aria-label="Plan to review">
      {reason && <p className="plan-reason">This plan waits for you: {reason}.</p>}
      <ol className="plan-steps">
        {plan.map((item, i) => (
          <StepEditor key={item.key} item={item} path={[i]} change={change} siblings={plan} />
        ))}
      </ol>
      <button type="button" className="btn btn-ghost" onClick={addStep} disabled={busy}>
        + Add a step
      </button>
      <label className="plan-note">
        <span>Note for the planner (re-plan)</span>
        <input
          value={note}
          onChange={(e) => setNote(e.target.value)}
          placeholder="e.g. only the last 3 months"
        />
      </label>
      <div className="plan-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || !plan.length}
          onClick={run(() => onApprove(plan))}
        >
          Approve and run
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy || !plan.length}
          onClick={run(() => onReplan(plan, note || undefined))}
        >
          Re-plan
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy || !plan.length}
          onClick={run(() => onSave(plan))}
        >
          Save edits
        </button>
        <button type="button" className="btn btn-danger" disabled={busy} onClick={run(onCancel)}>
          Cancel
        </button>
      </div>
    </section>
  );
}

function StepEditor({
  item,
  path,
  change,
  siblings,
}: {
  item: PlanItem;
  path: number[];
  change: (path: number[], f: (i: PlanItem) => PlanItem | undefined) => void;
  siblings: PlanItem[];
}) {
  const after = item.dependsOn.map((d) => siblings.find((s) => s.key === d)?.goal ?? d);
  return (
    <li className={`plan-step kind-${item.kind}`} data-step-key={item.key}>
      <div className="plan-step-row">
        <select
          aria-label="Kind of step"
          value={item.kind}
          onChange={(e) => change(path, (i) => ({ ...i, kind: e.target.value as NodeKind }))}
        >
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_WORDS[k]}
            </option>
          ))}
        </select>
        <textarea
          aria-label="Step"
          className="plan-goal"
          rows={1}
          value={item.goal}
          onChange={(e) => change(path, (i) => ({ ...i, goal: e.target.value }))}
        />
        <button
          type="button"
          className="btn btn-ghost plan-remove"
          aria-label={`Remove “${item.goal}”`}
          onClick={() => change(path, () => undefined)}
        >
          ✕
        </button>
      </div>
      {(item.tool || item.kind === 'read' || item.kind === 'web' || item.kind === 'write') && (
        <p className="plan-tool">
          {item.tool ?? 'no tool'}
          {item.args ? argsText(item.args) : ''}
          {after.length ? ` · after ${after.join(', ')}` : ''}
        </p>
      )}
      {item.kind === 'read' &&
        item.args &&
        'query' in item.args &&
        !String(item.args.query).includes('{{') && (
          <input
            aria-label={`Search words for “${item.goal}”`}
            className="plan-query"
            value={String(item.args.query)}
            onChange={(e) => change(path, (i) => ({ ...i, args: { ...i.args, query: e.target.value } }))}
          />
        )}
      {item.subtasks?.length ? (
        <ol className="plan-steps nested">
          {item.subtasks.map((s, j) => (
            <StepEditor
              key={s.key}
              item={s}
              path={[...path, j]}
              change={change}
              siblings={item.subtasks ?? []}
            />
          ))}
        </ol>
      ) : null}
    </li>
  );
}

/** The arguments a person reads: dates as days, `{{phone}}` as "the phone found earlier", the query apart. */
function argsText(args: NonNullable<PlanItem['args']>): string {
  const parts = Object.entries(args).flatMap(([k, v]) => {
    const text = String(v);
    if (k === 'query' && !text.includes('{{')) return [];
    const shown = /^\d{4}-\d{2}-\d{2}T/.test(text)
      ? text.slice(0, 10)
      : text.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, 'the $1 found earlier');
    return [`${k}: ${shown}`];
  });
  return parts.length ? ` · ${parts.join(', ')}` : '';
}
