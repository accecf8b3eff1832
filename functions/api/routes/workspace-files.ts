import type { Hono } from 'hono';
import {
  deleteWorkspaceFileResponse,
  diffWorkspaceFileRequest,
  diffWorkspaceFileResponse,
  tryPolicyRequest,
  tryPolicyResponse,
  workspaceFileQuery,
  workspaceFileResponse,
  workspaceFilesResponse,
  writeWorkspaceFileRequest,
  writeWorkspaceFileResponse,
} from '../../../shared/src/contracts/workspace-files';
import { tryPolicy } from '../../../shared/src/use-cases/try-policy';
import {
  deleteWorkspaceFile,
  diffWorkspaceFile,
  listWorkspaceFiles,
  readWorkspaceFile,
  writeWorkspaceFile,
} from '../../../shared/src/use-cases/workspace-files';
import type { AppEnv } from '../app';
import { currentUser, readJson, readQuery, reply } from '../http';

/**
 * The shared workspace-files component's routes (DESIGN.md §5). Any team member may list and read; what a
 * person may write or delete is decided per path (domain/workspace-file-access.ts) and refused with a 403,
 * so the same routes serve the admin policy editor, the memory browser, the skills editor and the lessons
 * list. "Try it" is under /api/admin/ (the session guard requires the admin role there).
 */
export function registerWorkspaceFileRoutes(app: Hono<AppEnv>) {
  app.get('/api/workspace/files', async (c) => {
    const core = c.get('core');
    const body = await listWorkspaceFiles({ workspace: await core.memoryWorkspace() }, currentUser(c));
    return reply(c, workspaceFilesResponse, body);
  });

  app.get('/api/workspace/file', async (c) => {
    const { path } = readQuery(c, workspaceFileQuery);
    const core = c.get('core');
    const file = await readWorkspaceFile({ workspace: await core.memoryWorkspace() }, currentUser(c), path);
    return reply(c, workspaceFileResponse, file);
  });

  app.put('/api/workspace/file', async (c) => {
    const input = await readJson(c, writeWorkspaceFileRequest);
    const core = c.get('core');
    const saved = await writeWorkspaceFile(
      { workspace: await core.memoryWorkspace() },
      currentUser(c),
      input,
    );
    return reply(c, writeWorkspaceFileResponse, saved);
  });

  app.delete('/api/workspace/file', async (c) => {
    const { path } = readQuery(c, workspaceFileQuery);
    const core = c.get('core');
    const done = await deleteWorkspaceFile({ workspace: await core.memoryWorkspace() }, currentUser(c), path);
    return reply(c, deleteWorkspaceFileResponse, done);
  });

  app.post('/api/workspace/diff', async (c) => {
    const { path, text } = await readJson(c, diffWorkspaceFileRequest);
    const core = c.get('core');
    const diff = await diffWorkspaceFile({ workspace: await core.memoryWorkspace() }, path, text);
    return reply(c, diffWorkspaceFileResponse, diff);
  });

  app.post('/api/admin/policy/try', async (c) => {
    const input = await readJson(c, tryPolicyRequest);
    const core = c.get('core');
    const result = await tryPolicy(
      {
        workspace: await core.memoryWorkspace(),
        clock: core.clock,
        timezone: core.config.TEAM_TIMEZONE,
        settings: { escalation_requires_approval: core.config.ESCALATION_REQUIRES_APPROVAL },
      },
      input,
    );
    return reply(c, tryPolicyResponse, result);
  });
}
