import type { Hono } from 'hono';
import {
  memoryHistoryRequestSchema,
  memoryHistoryResponseSchema,
} from '../../../shared/src/contracts/memory';
import { listMemoryHistory } from '../../../shared/src/use-cases/list-memory-history';
import type { AppEnv } from '../app';
import { readQuery, reply } from '../http';

/** What the assistant wrote to its memory lately ("what did it learn this week?"). */
export function registerMemoryRoutes(app: Hono<AppEnv>) {
  app.get('/api/memory/history', async (c) => {
    const query = readQuery(c, memoryHistoryRequestSchema);
    const core = c.get('core');
    const history = await listMemoryHistory({ workspace: await core.memoryWorkspace() }, query);
    return reply(c, memoryHistoryResponseSchema, history);
  });
}
