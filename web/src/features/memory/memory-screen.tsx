import { Shell } from '../../components/shell';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { fullTime } from '../../lib/format';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';

/** What the assistant wrote to its memory lately: each commit with the files it changed, diffs folded. */
export function MemoryScreen() {
  const api = useApi();
  const res = useResource(() => api.memoryHistory(20), 'memory-history');
  const off = res.error instanceof ApiError && res.error.status === 404;
  return (
    <Shell title="Memory" subtitle="What the assistant learned" back="/settings">
      {res.loading && !res.data && <Loading label="Reading the memory workspace…" />}
      {off && <EmptyState title="No memory workspace">{describeError(res.error)}</EmptyState>}
      {!off && res.error !== undefined && !res.data && (
        <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />
      )}
      {res.data && res.data.commits.length === 0 && <EmptyState title="Nothing written yet" />}
      {res.data && res.data.commits.length > 0 && (
        <ol className="history memory">
          {res.data.commits.map((c) => (
            <li key={c.oid} className="card">
              {/* The subject line; the body repeats the file list shown below. */}
              <p className="memory-message">{c.message.split('\n')[0]}</p>
              <p className="muted small">
                {c.author} · {fullTime(c.committedAt)}
                {c.merge ? ' · merged' : ''}
              </p>
              {c.files.map((f) => (
                <details key={f.path}>
                  <summary>
                    <span
                      className={`chip chip-${f.change === 'deleted' ? 'failed' : f.change === 'added' ? 'executed' : 'approved'}`}
                    >
                      {f.change}
                    </span>{' '}
                    <code>{f.path}</code>
                  </summary>
                  <pre>
                    {f.patch}
                    {f.patchTruncated ? '\n…' : ''}
                  </pre>
                </details>
              ))}
            </li>
          ))}
        </ol>
      )}
    </Shell>
  );
}
