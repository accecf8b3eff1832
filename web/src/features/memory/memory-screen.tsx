import type { MemoryCommit } from '../../../../shared/src/contracts/memory';
import type { WorkspaceFileResponse } from '../../../../shared/src/contracts/workspace-files';
import { Markdown } from '../../components/markdown';
import { Shell } from '../../components/shell';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { fullTime } from '../../lib/format';
import { Link, useLocation } from '../../lib/router';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { DiffLines } from '../workspace-files/policy-change-diff';
import { WorkspaceFiles } from '../workspace-files/workspace-files';
import './memory.css';

const VIEWS = [
  { id: 'overview', label: 'MEMORY.md' },
  { id: 'files', label: 'Files' },
  { id: 'changes', label: 'Changes' },
] as const;
type View = (typeof VIEWS)[number]['id'];

/**
 * The memory browser (issue 19): the assistant's own guide (MEMORY.md) rendered, every file of the workspace
 * readable on the shared workspace-files component (with its history and diffs beside it), and the change log
 * of what was written lately. Views are links (`/memory?view=files`), so Back and deep links work.
 */
export function MemoryScreen() {
  const { query } = useLocation();
  const asked = query.get('view');
  const view: View = VIEWS.some((v) => v.id === asked) ? (asked as View) : 'overview';
  return (
    <Shell title="Memory" subtitle="What the assistant knows and learned" back="/settings">
      <nav className="memory-views" aria-label="Memory views">
        {VIEWS.map((v) => (
          <Link
            key={v.id}
            href={v.id === 'overview' ? '/memory' : `/memory?view=${v.id}`}
            className={`memory-view${v.id === view ? ' active' : ''}`}
            aria-current={v.id === view ? 'page' : undefined}
          >
            {v.label}
          </Link>
        ))}
      </nav>
      {view === 'overview' && <Overview />}
      {view === 'files' && (
        <WorkspaceFiles
          cacheKey="memory"
          emptyTitle="The workspace has no files yet"
          aside={(file: WorkspaceFileResponse) => <FileHistory path={file.path} />}
        />
      )}
      {view === 'changes' && <Changes />}
    </Shell>
  );
}

/** MEMORY.md as the assistant reads it, rendered (no HTML, safe links: the chat's markdown component). */
function Overview() {
  const api = useApi();
  const res = useResource(() => api.workspaceFile('MEMORY.md'), 'memory-overview');
  const missing = res.error instanceof ApiError && res.error.status === 404;
  if (res.loading && !res.data) return <Loading label="Reading MEMORY.md…" />;
  if (missing) return <EmptyState title="No MEMORY.md yet">{describeError(res.error)}</EmptyState>;
  if (!res.data) return <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />;
  return (
    <article className="card memory-doc" aria-label="MEMORY.md">
      <Markdown text={res.data.text} />
      <p className="muted small">
        <Link href="/memory?view=files">All files</Link> ·{' '}
        <Link href="/memory?view=changes">What changed</Link>
      </p>
    </article>
  );
}

/** The commits that changed one file (among the newest 50), each with its diff. */
function FileHistory({ path }: { path: string }) {
  const api = useApi();
  const res = useResource(() => api.memoryHistory(20, path), `memory-file-history-${path}`);
  return (
    <section className="memory-file-history" aria-label={`History of ${path}`}>
      <h2 className="field-label">History</h2>
      {res.loading && !res.data && <Loading label="Reading the history…" />}
      {res.error !== undefined && !res.data && <p className="error-text">{describeError(res.error)}</p>}
      {res.data && res.data.commits.length === 0 && (
        <p className="muted small">No change to this file among the latest 50 commits.</p>
      )}
      {res.data && res.data.commits.length > 0 && <CommitList commits={res.data.commits} openFirst />}
    </section>
  );
}

function Changes() {
  const api = useApi();
  const res = useResource(() => api.memoryHistory(20), 'memory-history');
  const off = res.error instanceof ApiError && res.error.status === 404;
  if (res.loading && !res.data) return <Loading label="Reading the memory workspace…" />;
  if (off) return <EmptyState title="No memory workspace">{describeError(res.error)}</EmptyState>;
  if (!res.data) return <ErrorState message={describeError(res.error)} onRetry={() => void res.reload()} />;
  if (res.data.commits.length === 0) return <EmptyState title="Nothing written yet" />;
  return <CommitList commits={res.data.commits} />;
}

/** Each commit: its subject, who and when, and per file a folded diff with added and removed lines marked. */
function CommitList({ commits, openFirst = false }: { commits: MemoryCommit[]; openFirst?: boolean }) {
  return (
    <ol className="history memory">
      {commits.map((c, i) => (
        <li key={c.oid} className="card">
          {/* The subject line; the body repeats the file list shown below. */}
          <p className="memory-message">{c.message.split('\n')[0]}</p>
          <p className="muted small">
            {c.author} · {fullTime(c.committedAt)}
            {c.merge ? ' · merged' : ''}
          </p>
          {c.files.map((f) => (
            <details key={f.path} open={openFirst && i === 0}>
              <summary>
                <span
                  className={`chip chip-${f.change === 'deleted' ? 'failed' : f.change === 'added' ? 'executed' : 'approved'}`}
                >
                  {f.change}
                </span>{' '}
                <code>{f.path}</code>
              </summary>
              <DiffLines diff={f.patch} />
              {f.patchTruncated && <p className="muted small">The diff is cut here.</p>}
            </details>
          ))}
        </li>
      ))}
    </ol>
  );
}
