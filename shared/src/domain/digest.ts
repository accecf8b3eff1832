import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import type { Conversation } from '../contracts/conversations';
import type { FollowUp } from '../contracts/followups';
import { DIGEST_CONVERSATION_PREFIX } from './digest-prefix';

/** The next time the local clock in `timezone` reads `hour`:00, strictly after `now`. */
export function nextDigestAt(hour: number, timezone: string, now: Date): Date {
  const local = DateTime.fromJSDate(now).setZone(timezone);
  let at = local.set({ hour, minute: 0, second: 0, millisecond: 0 });
  if (at.toMillis() <= now.getTime()) at = at.plus({ days: 1 }).set({ hour });
  return at.toJSDate();
}

const userHash = (userId: string) => createHash('sha256').update(userId).digest('hex').slice(0, 16);

/**
 * One schedule per person and day (`digest-<hash>-<yyyyMMddHH>` in UTC): a replayed step re-creates the same
 * name (the Timers port keeps the first), and a changed hour is a different name, so the old one is cancelled
 * by name. Scheduler names allow [0-9a-zA-Z-_.], up to 64 characters.
 */
export function digestTimerName(userId: string, at: Date): string {
  return `digest-${userHash(userId)}-${DateTime.fromJSDate(at).toUTC().toFormat('yyyyMMddHH')}`;
}

export { DIGEST_CONVERSATION_PREFIX };
export const digestConversationId = (userId: string) => `${DIGEST_CONVERSATION_PREFIX}${userHash(userId)}`;

export interface DigestInput {
  now: Date;
  timezone: string;
  conversations: Conversation[];
  followups: FollowUp[];
}

export interface Digest {
  title: string;
  /** The push body: counts only (a lock screen shows it). */
  body: string;
  /** The message kept in the digest thread: each item by name. */
  text: string;
  counts: { waiting: number; urgent: number; leads: number; followups: number };
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * What the person should know at the start of the day (issue 20): cards waiting for a decision, urgent items
 * of the last day, leads waiting on us, and follow-ups due in the next day. Pure: the caller reads the data.
 */
export function composeDigest(input: DigestInput): Digest {
  const since = input.now.getTime() - DAY_MS;
  const open = input.conversations.filter((c) => c.status !== 'done' && c.status !== 'archived');
  const waiting = open.filter((c) => c.pendingCount > 0);
  const urgent = input.conversations.filter((c) => c.urgent && Date.parse(c.urgent.at) >= since);
  const leads = open.filter((c) => c.lead?.state === 'waiting_on_us');
  const until = input.now.getTime() + DAY_MS;
  const due = input.followups.filter((f) => f.status === 'scheduled' && Date.parse(f.at) <= until);
  const time = (iso: string) => DateTime.fromISO(iso).setZone(input.timezone).toFormat('ccc h:mm a');
  const sections: string[] = [];
  const list = (title: string, lines: string[]) => {
    if (lines.length) sections.push(`**${title}**\n${lines.map((l) => `- ${l}`).join('\n')}`);
  };
  // Counted in cards, listed by conversation: "Cards waiting (6)" over "Maria Lopez: 3 to decide", …
  const cards = waiting.reduce((n, c) => n + c.pendingCount, 0);
  list(
    `Cards waiting (${cards})`,
    waiting.map((c) => `${c.title}: ${c.pendingCount} to decide`),
  );
  list(
    `Urgent in the last day (${urgent.length})`,
    urgent.map((c) => `${c.title}: ${c.urgent?.reason ?? ''}`),
  );
  list(
    `Leads waiting on us (${leads.length})`,
    leads.map((c) => `${c.title}${c.lead?.property ? ` (${c.lead.property})` : ''}`),
  );
  list(
    `Follow-ups due (${due.length})`,
    due.map((f) => `${time(f.at)}: ${f.kind === 'reminder' ? 'remind' : 'text'} ${f.toName ?? f.to}`),
  );
  const counts = {
    waiting: cards,
    urgent: urgent.length,
    leads: leads.length,
    followups: due.length,
  };
  const body = [
    `${counts.waiting} card${counts.waiting === 1 ? '' : 's'} waiting`,
    `${counts.urgent} urgent`,
    `${counts.leads} lead${counts.leads === 1 ? '' : 's'} waiting on us`,
    `${counts.followups} follow-up${counts.followups === 1 ? '' : 's'} due`,
  ].join(' · ');
  const day = DateTime.fromJSDate(input.now).setZone(input.timezone).toFormat('cccc d LLLL');
  return {
    title: `Your digest for ${day}`,
    body,
    text: sections.length
      ? `Digest for ${day}\n\n${sections.join('\n\n')}`
      : `Digest for ${day}: nothing waiting.`,
    counts,
  };
}
