import type { PendingAction } from '../../../../shared/src/contracts/conversations';
import { Loading } from '../../components/states';
import { describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi, useMe } from '../auth/auth-context';
import './workspace-files.css';

/**
 * What a `propose_policy_change` card would change, as a unified diff against the file as saved now (the API
 * computes it; the proposal's own text is never shown as if it were the current policy). Only an admin may
 * approve such a card; everyone else is told so before they press anything.
 */
export function PolicyChangeDiff({ action }: { action: PendingAction }) {
  const api = useApi();
  const me = useMe();
  const path = String(action.args.path ?? '');
  const text = String(action.args.text ?? '');
  const diff = useResource(() => api.diffWorkspaceFile(path, text), `policy-diff-${action.id}`);
  return (
    <div className="policy-diff">
      <p className="field-label">Proposed change</p>
      <code className="wsf-path">{path}</code>
      {typeof action.args.reason === 'string' && <p className="policy-diff-reason">{action.args.reason}</p>}
      {diff.loading && !diff.data && <Loading label="Comparing with the saved policy…" />}
      {diff.error !== undefined && !diff.data && <p className="error-text">{describeError(diff.error)}</p>}
      {diff.data && <DiffLines diff={diff.data.diff} />}
      {action.status === 'PENDING' && !me.isAdmin && (
        <p className="muted small">Only an admin can approve a policy change; you can deny it.</p>
      )}
    </div>
  );
}

function DiffLines({ diff }: { diff: string }) {
  if (!diff) return <p className="muted small">No difference from the saved file.</p>;
  // The two header lines name the file, already shown above.
  const lines = diff.split('\n').filter((l) => !l.startsWith('---') && !l.startsWith('+++'));
  return (
    <pre className="wsf-diff">
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
