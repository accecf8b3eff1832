import { type ReactNode, useCallback, useState } from 'react';
import type {
  WorkspaceFileEntry,
  WorkspaceFileResponse,
} from '../../../../shared/src/contracts/workspace-files';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { ApiError, describeError } from '../../lib/api';
import { useResource } from '../../lib/use-resource';
import { useApi } from '../auth/auth-context';
import { type EditorIssue, FileEditor, type SaveOutcome } from './file-editor';
import { FileTree } from './file-tree';
import './workspace-files.css';

export interface WorkspaceFilesProps {
  /** Which files this screen shows, e.g. only `kind === 'policy'`. */
  filter?: (f: WorkspaceFileEntry) => boolean;
  /** Checks edited text while typing (the policy editor's parse check); problems are shown inline. */
  validate?: (path: string, text: string) => Promise<EditorIssue[]>;
  /** A panel under the editor for the open file and its edited text (the policy editor's "try it"). */
  aside?: (file: WorkspaceFileResponse, text: string) => ReactNode;
  emptyTitle?: string;
  /** A resource key prefix, so two screens using the component do not share cached lists. */
  cacheKey?: string;
}

/**
 * The shared workspace-files component (DESIGN.md §5): a file tree beside a viewer/editor of the memory
 * workspace. What each person may do comes from the API per path (canWrite/canDelete); this component only
 * shows it. Used by the admin policy editor; the memory browser, skills editor and lessons list reuse it.
 */
export function WorkspaceFiles({
  filter,
  validate,
  aside,
  emptyTitle = 'No files yet',
  cacheKey = 'wsf',
}: WorkspaceFilesProps) {
  const api = useApi();
  const list = useResource(() => api.workspaceFiles(), `${cacheKey}-files`);
  const [selected, setSelected] = useState<string>();
  const off = list.error instanceof ApiError && list.error.status === 404;
  const files = (list.data?.files ?? []).filter((f) => !filter || filter(f));

  if (list.loading && !list.data) return <Loading label="Reading the memory workspace…" />;
  if (off) return <EmptyState title="No memory workspace">{describeError(list.error)}</EmptyState>;
  if (list.error !== undefined && !list.data)
    return <ErrorState message={describeError(list.error)} onRetry={() => void list.reload()} />;
  if (files.length === 0) return <EmptyState title={emptyTitle} />;
  return (
    <div className={`wsf${selected ? ' wsf-has-file' : ''}`}>
      <div className="wsf-side">
        <FileTree files={files} selected={selected} onSelect={setSelected} />
      </div>
      <div className="wsf-main">
        {selected ? (
          <>
            <button type="button" className="link-btn wsf-back" onClick={() => setSelected(undefined)}>
              ← All files
            </button>
            <OpenFile
              key={selected}
              path={selected}
              cacheKey={cacheKey}
              validate={validate}
              aside={aside}
              onSaved={() => void list.reload()}
            />
          </>
        ) : (
          <p className="muted wsf-hint">
            Choose a file to read{files.some((f) => f.canWrite) ? ' or edit' : ''}.
          </p>
        )}
      </div>
    </div>
  );
}

function OpenFile({
  path,
  cacheKey,
  validate,
  aside,
  onSaved,
}: {
  path: string;
  cacheKey: string;
  validate?: WorkspaceFilesProps['validate'];
  aside?: WorkspaceFilesProps['aside'];
  onSaved: () => void;
}) {
  const api = useApi();
  const file = useResource(() => api.workspaceFile(path), `${cacheKey}-file-${path}`);
  const check = useCallback(
    (text: string) => validate?.(path, text) ?? Promise.resolve([]),
    [validate, path],
  );

  const save = async (text: string, message: string): Promise<SaveOutcome | undefined> => {
    const current = file.data;
    if (!current) return { error: 'The file is not loaded.' };
    try {
      await api.saveWorkspaceFile({
        path,
        text,
        baseVersion: current.version,
        ...(message ? { message } : {}),
      });
      await file.reload();
      onSaved();
      return undefined;
    } catch (e) {
      return saveFailure(e);
    }
  };

  if (file.loading && !file.data) return <Loading label={`Opening ${path}…`} />;
  if (!file.data)
    return <ErrorState message={describeError(file.error)} onRetry={() => void file.reload()} />;
  const loaded = file.data;
  return (
    <FileEditor
      file={loaded}
      {...(validate ? { validate: check } : {})}
      onSave={save}
      {...(aside ? { aside: (text: string) => aside(loaded, text) } : {})}
    />
  );
}

/** A refused save, as the editor shows it: parse problems inline, a conflict as a warning, else the sentence. */
function saveFailure(e: unknown): SaveOutcome {
  if (e instanceof ApiError && e.code === 'rulebase_invalid') {
    const details = e.details as { issues?: EditorIssue[] } | undefined;
    return { issues: details?.issues ?? [], error: e.message };
  }
  if (e instanceof ApiError && e.status === 409)
    return { conflict: `${e.message} Your text is still in the editor; copy it before reloading.` };
  return { error: describeError(e) };
}
