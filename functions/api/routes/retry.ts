import type { Hono } from 'hono';
import { decisionResponse } from '../../../shared/src/contracts/api';
import { retryAction } from '../../../shared/src/use-cases/retry-action';
import type { AppEnv } from '../app';
import { currentUser, reply } from '../http';

/** "Retry" on a FAILED card: a new card with its own hash, approved afresh (never a re-run of the old one). */
export function registerRetryRoutes(app: Hono<AppEnv>) {
  app.post('/api/conversations/:cid/actions/:aid/retry', async (c) => {
    const user = currentUser(c);
    const action = await retryAction(c.get('core'), {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      user: { id: user.id, email: user.email },
    });
    return reply(c, decisionResponse, { action }, 201);
  });
}
