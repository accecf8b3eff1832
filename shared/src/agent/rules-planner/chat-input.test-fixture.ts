import type { Observation, PlannerInput } from '../types';

/** A chat request as the rules planner's tests hand it over: the person's text, what was observed, a pending request. */
export function chatInput(
  text: string,
  opts: {
    now: Date;
    timezone: string;
    channel?: 'web' | 'sms';
    email?: string;
    observations?: Observation[];
    pending?: { intent: string; slots: Record<string, unknown>; missing: string[] };
    hasTool?: boolean;
  },
): PlannerInput {
  const { now, pending } = opts;
  return {
    trigger: {
      kind: 'chat',
      channel: opts.channel ?? 'web',
      text,
      user: { id: 'u', email: opts.email ?? 'sam@oak.example' },
    },
    observations: opts.observations ?? [],
    ...(pending
      ? {
          pendingIntent: {
            conversationId: 'c1',
            ...pending,
            createdAt: now.toISOString(),
            expiresAt: new Date(now.getTime() + 600_000).toISOString(),
          },
        }
      : {}),
    now,
    timezone: opts.timezone,
    hasTool: () => opts.hasTool ?? true,
  };
}
