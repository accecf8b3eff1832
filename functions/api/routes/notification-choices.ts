import type { Hono } from 'hono';
import {
  notificationChoicesResponse,
  saveNotificationChoicesRequest,
} from '../../../shared/src/contracts/notification-choices';
import {
  readNotificationChoices,
  saveNotificationChoices,
} from '../../../shared/src/use-cases/notification-choices';
import type { AppEnv } from '../app';
import { actorOf, readJson, reply } from '../http';

/**
 * What pushes a person wants (issue 19): approvals, urgent matters, everything; quiet hours. Each person reads
 * and writes only their own (the session's user id is the subject), so no admin role is needed.
 */
export function registerNotificationChoiceRoutes(app: Hono<AppEnv>) {
  app.get('/api/me/notifications', async (c) => {
    const core = c.get('core');
    const saved = await readNotificationChoices(core, actorOf(c).id);
    return reply(c, notificationChoicesResponse, {
      ...saved,
      teamDelayMinutes: core.config.APPROVAL_TEAM_DELAY_MINUTES,
    });
  });

  app.put('/api/me/notifications', async (c) => {
    const core = c.get('core');
    const me = actorOf(c);
    const choices = await readJson(c, saveNotificationChoicesRequest);
    const saved = await saveNotificationChoices(core, { userId: me.id, by: me.email, choices });
    return reply(c, notificationChoicesResponse, {
      ...saved,
      teamDelayMinutes: core.config.APPROVAL_TEAM_DELAY_MINUTES,
    });
  });
}
