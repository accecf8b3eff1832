import { createHash } from 'node:crypto';

/** One check per conversation and lead state (the time the lead moved): a replayed move sets nothing twice. */
export const leadCheckStamp = (conversationId: string, leadSince: string) =>
  createHash('sha256').update(`${conversationId}#${leadSince}`).digest('hex').slice(0, 24);

/** The schedule of that check; an admin delete cancels the current one by it (issue 19). */
export const leadCheckTimerName = (conversationId: string, leadSince: string) =>
  `lead-${leadCheckStamp(conversationId, leadSince)}`;
