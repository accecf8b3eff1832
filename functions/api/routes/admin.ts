import type { Hono } from 'hono';
import {
  instructionsResponse,
  updateInstructionsRequest,
  vendorStatusResponse,
} from '../../../shared/src/contracts/api';
import { getInstructions, updateInstructions } from '../../../shared/src/use-cases/update-instructions';
import { vendorStatus } from '../../../shared/src/use-cases/vendor-status';
import type { AppEnv } from '../app';
import { currentUser, readJson, reply } from '../http';

/** Admin-only (the session guard checks the role for everything under /api/admin/). */
export function registerAdminRoutes(app: Hono<AppEnv>) {
  app.get('/api/admin/instructions', async (c) =>
    reply(c, instructionsResponse, await getInstructions(c.get('core'))),
  );

  app.put('/api/admin/instructions', async (c) => {
    const { text } = await readJson(c, updateInstructionsRequest);
    const result = await updateInstructions(c.get('core'), { text, by: currentUser(c).email });
    return reply(c, instructionsResponse, result);
  });

  app.get('/api/admin/vendor-status', async (c) => {
    const core = c.get('core');
    const g = core.config;
    // Google's auth library (about 180 KB) loads with this admin page, not at every API cold start.
    const googleGroups =
      g.GOOGLE_SERVICE_ACCOUNT_JSON && g.GOOGLE_IMPERSONATE_USER
        ? Object.values((await import('../../../shared/src/adapters/google/tool-groups')).googleGroupGates(g))
        : [];
    return reply(c, vendorStatusResponse, await vendorStatus({ ...core, googleGroups }));
  });
}
