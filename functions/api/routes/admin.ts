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

  app.get('/api/admin/vendor-status', async (c) =>
    reply(c, vendorStatusResponse, await vendorStatus(c.get('core'))),
  );
}
