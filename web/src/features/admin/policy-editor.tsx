import { useCallback } from 'react';
import { Shell } from '../../components/shell';
import { EmptyState } from '../../components/states';
import { useApi, useMe } from '../auth/auth-context';
import { WorkspaceFiles } from '../workspace-files/workspace-files';
import { PolicyTry } from './policy-try';
import './policy-editor.css';

/**
 * The team's policy rulebase (`policy/*.rules` in the memory workspace), edited by admins: problems by line
 * and column while typing, "try it" against the unsaved edit, and a save committed with the admin's name.
 */
export function PolicyEditorScreen() {
  const me = useMe();
  const api = useApi();
  const validate = useCallback(
    async (path: string, text: string) => (await api.tryPolicy({ path, text })).issues,
    [api],
  );
  return (
    <Shell title="Policy" subtitle="The rules the assistant works by" back="/admin">
      {me.isAdmin ? (
        <WorkspaceFiles
          cacheKey="policy"
          filter={(f) => f.kind === 'policy'}
          validate={validate}
          aside={(file, text) =>
            file.canWrite && file.path.endsWith('.rules') ? <PolicyTry path={file.path} text={text} /> : null
          }
          emptyTitle="No policy files"
        />
      ) : (
        <EmptyState title="Admins only">Only admins can change the policy. Ask an admin.</EmptyState>
      )}
    </Shell>
  );
}
