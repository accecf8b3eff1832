import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import './workspace-files.css';

/**
 * What a `propose_policy_change` card would change, as a unified diff against the file as saved now (the API
 * computes it; the proposal's own text is never shown as if it were the current policy), and a warning when
 * the file was saved after the proposal was made. Only an admin may
 * approve such a card; everyone else is told so before they press anything.
 */
export function PolicyChangeDiff({ action }: { action: PendingAction }) {
  const api = useApi();
  const me = useMe();
  const path = String(action.args.path ?? '');
  const text = String(action.args.text ?? '');
  const diff = useResource(() => api.diffWorkspaceFile(path, text), `policy-diff-${action.id}`);
  // The system recorded which version of the file the proposal was made against; if the file was saved since,
  // approving would undo that save (the API refuses with a 409), so the card says so before anyone presses.
  const base = typeof action.args.baseVersion === 'string' ? action.args.baseVersion : undefined;
  const stale =
    base !== undefined &&
    diff.data !== undefined &&
    diff.data.diff !== '' &&
    (diff.data.version ?? 'new') !== base;
  return (
    <div className="policy-diff">
      <p className="field-label">Proposed change</p>
      <code className="wsf-path">{path}</code>
      {typeof action.args.reason === 'string' && <p className="policy-diff-reason">{action.args.reason}</p>}
      {diff.loading && !diff.data && <Loading label="Comparing with the saved policy…" />}
      {diff.error !== undefined && !diff.data && <p className="error-text">{describeError(diff.error)}</p>}
      {stale && action.status === 'PENDING' && (
        <p className="error-text policy-diff-stale" role="alert">
          {path} was saved after this was proposed: approving it would undo that change. Deny it and ask
          again, or change the policy in Admin › Policy.
        </p>
      )}
      {diff.data && <DiffLines diff={diff.data.diff} />}
      {action.status === 'PENDING' && !me.isAdmin && (
        <p className="muted small">Only an admin can approve a policy change; you can deny it.</p>
      )}
    </div>
  );
}

/** A unified diff, its added and removed lines marked (the memory browser's history shows them too). */
export function DiffLines({ diff }: { diff: string }) {
  if (!diff) return <p className="muted small">No difference from the saved file.</p>;
  // The two header lines name the file, already shown above.
  const lines = diff.split('\n').filter((l) => !l.startsWith('---') && !l.startsWith('+++'));
  return (
    // Focusable: a long diff scrolls inside its box, and a keyboard must be able to scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region has to take focus (axe scrollable-region-focusable)
    <pre className="wsf-diff" tabIndex={0}>
      {lines.map((l, i) => (
        <span
          // biome-ignore lint/suspicious/noArrayIndexKey: lines of one diff never reorder
          key={i}
          className={l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : ''}
        >
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
