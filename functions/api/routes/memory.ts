import type { Hono } from 'hono';
import type { Core } from '../../../shared/src/composition';
import {
  memoryHistoryRequestSchema,
  memoryHistoryResponseSchema,
} from '../../../shared/src/contracts/memory';
import { NotFoundError } from '../../../shared/src/errors';
import type { Workspace } from '../../../shared/src/ports/workspace';
import { listMemoryHistory } from '../../../shared/src/use-cases/list-memory-history';
import type { AppEnv } from '../app';
import { readQuery, reply } from '../http';

const workspaces = new WeakMap<Core, Promise<Workspace>>();

/**
 * The memory workspace as the API reads it: cloned on the first request (not at cold start — most API
 * calls never need it) into its own folder, so on a shared machine it never shares a working copy with
 * the worker. A failed clone is forgotten, so the next request tries again.
 */
export function workspaceFor(core: Core): Promise<Workspace> {
  let ws = workspaces.get(core);
  if (!ws) {
    const c = core.config;
    if (!c.MEMORY_GIT_URL) {
      throw new NotFoundError(
        'The assistant has no memory workspace on this deployment (MEMORY_GIT_URL is not set).',
      );
    }
    ws = import('../../../shared/src/adapters/git-workspace').then(
      ({ gitWorkspaceOptionsFromConfig, openGitWorkspace }) =>
        openGitWorkspace({
          ...gitWorkspaceOptionsFromConfig(c),
          dir: `${c.MEMORY_DIR}-api`,
          logger: core.log,
        }),
    );
    ws.catch(() => workspaces.delete(core));
    workspaces.set(core, ws);
  }
  return ws;
}

/** What the assistant wrote to its memory lately ("what did it learn this week?"). */
export function registerMemoryRoutes(app: Hono<AppEnv>) {
  app.get('/api/memory/history', async (c) => {
    const query = readQuery(c, memoryHistoryRequestSchema);
    const core = c.get('core');
    const history = await listMemoryHistory({ workspace: await workspaceFor(core) }, query);
    return reply(c, memoryHistoryResponseSchema, history);
  });
}
