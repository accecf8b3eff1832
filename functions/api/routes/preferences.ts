import type { Hono } from 'hono';
import {
  type PersonalPreferences,
  preferencesResponse,
  savePersonalPreferencesRequest,
} from '../../../shared/src/contracts/preferences';
import { nextDigestAt } from '../../../shared/src/domain/digest';
import { assignExistingByProperty } from '../../../shared/src/use-cases/assign-conversation';
import { readPreferences, savePersonalPreferences } from '../../../shared/src/use-cases/preferences';
import { rescheduleDigest } from '../../../shared/src/use-cases/run-digest';
import type { AppEnv } from '../app';
import { actorOf, readJson, reply } from '../http';

/**
 * A person's own preferences (follow #20): time zone, signature, default event length, digest hour and the
 * properties they handle. Each person edits only their own (the session's user id is the subject), so the
 * route needs no admin role and no one can set another's signature.
 */
export function registerPreferenceRoutes(app: Hono<AppEnv>) {
  app.get('/api/me/preferences', async (c) => {
    const core = c.get('core');
    const me = actorOf(c);
    const prefs = await readPreferences(core, me.id);
    return reply(c, preferencesResponse, view(prefs, me.id, core.config.TEAM_TIMEZONE, core.clock()));
  });

  app.put('/api/me/preferences', async (c) => {
    const core = c.get('core');
    const me = actorOf(c);
    const patch = await readJson(c, savePersonalPreferencesRequest);
    const saved = await savePersonalPreferences(core, {
      userId: me.id,
      ...(me.name ? { name: me.name } : {}),
      patch,
      by: me.email,
    });
    await rescheduleDigest(
      {
        ...(core.cardTimers.timers ? { timers: core.cardTimers.timers } : {}),
        clock: core.clock,
        teamTimezone: core.config.TEAM_TIMEZONE,
      },
      { userId: me.id, ...saved },
    );
    // Conversations already about a property they now handle become theirs too, not only new ones.
    const assignedNow = patch.properties
      ? await assignExistingByProperty(core, { userId: me.id, properties: patch.properties })
      : 0;
    const prefs = await readPreferences(core, me.id);
    return reply(c, preferencesResponse, {
      ...view(prefs, me.id, core.config.TEAM_TIMEZONE, core.clock()),
      ...(assignedNow ? { assignedNow } : {}),
    });
  });
}

function view(
  prefs: Awaited<ReturnType<typeof readPreferences>>,
  userId: string,
  teamTimezone: string,
  now: Date,
): { personal: PersonalPreferences; team: typeof prefs.team; teamTimezone: string; nextDigestAt?: string } {
  const hour = prefs.personal.digestHour;
  const assignments = prefs.team.assignments.map((a) => ({ ...a, mine: a.userId === userId }));
  return {
    personal: prefs.personal,
    team: { assignments },
    teamTimezone,
    ...(hour !== undefined
      ? { nextDigestAt: nextDigestAt(hour, prefs.personal.timezone ?? teamTimezone, now).toISOString() }
      : {}),
  };
}
