import { useState } from 'react';
import { Banner, EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';

interface LessonRow {
  path: string;
  line: string;
  canDelete: boolean;
}

/** The lesson's one-line statement: the third line of the file the system writes (domain/lessons.ts). */
const lineOf = (text: string, path: string) =>
  text.split('\n').find((l, i) => i > 0 && l.trim() && !l.startsWith('#')) ?? path;

/**
 * Settings → Lessons (cards #18): what the assistant learned from the team's decisions — a sign-off made on
 * approval, a deny reason, a redraft instruction — each one line, newest learning applied to the next
 * drafts. Admins can delete one (the memory workspace's per-path permissions decide); it is then forgotten.
 */
export function LessonsSection() {
  const api = useApi();
  const list = useResource(async (): Promise<LessonRow[]> => {
    const files = (await api.workspaceFiles()).files.filter((f) => f.kind === 'lesson' && f.canRead);
    return Promise.all(
      files.map(async (f) => ({
        path: f.path,
        line: lineOf((await api.workspaceFile(f.path)).text, f.path),
        canDelete: f.canDelete,
      })),
    );
  }, 'lessons-section');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();

  if (list.loading && !list.data) return <Loading label="Reading lessons…" />;
  if (list.error instanceof ApiError && list.error.status === 404)
    return <p className="muted">This deployment keeps no memory workspace, so nothing is learned.</p>;
  if (list.error !== undefined && !list.data)
    return <ErrorState message={describeError(list.error)} onRetry={() => void list.reload()} />;
  const rows = list.data ?? [];
  if (rows.length === 0)
    return (
      <EmptyState title="No lessons yet">
        Edits you approve and reasons you give when denying or redrafting a card are learned here.
      </EmptyState>
    );
  return (
    <>
      {error && <Banner kind="error">{error}</Banner>}
      <ul className="lessons-list">
        {rows.map((r) => (
          <li key={r.path} className="lesson-row">
            <span>{r.line}</span>
            {r.canDelete && (
              <button
                type="button"
                className="btn btn-small btn-ghost"
                disabled={busy === r.path}
                aria-label={`Forget: ${r.line}`}
                onClick={async () => {
                  setBusy(r.path);
                  setError(undefined);
                  try {
                    await api.deleteWorkspaceFile(r.path);
                    await list.reload();
                  } catch (e) {
                    setError(describeError(e));
                  } finally {
                    setBusy(undefined);
                  }
                }}
              >
                Forget
              </button>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
