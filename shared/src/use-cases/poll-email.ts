import { DateTime } from 'luxon';
import type { Config } from '../config';
import { type EventEnvelope, eventEnvelope } from '../contracts/events';
import { describeZodIssues, NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import type { EmailCursor, EmailCursorStore, InflightEmail } from '../ports/email-cursor-store';
import type { Mailbox, MailMessage } from '../ports/mailbox';

/**
 * Scheduled email poll (SPEC §4, issue 3 §2): one `email.received` event per new message, never two for
 * the same message, none skipped — even when two polls overlap.
 *
 * Primary course:
 * 1. The leads poll only runs between 08:00 and 20:00 team time.
 * 2. Read the cursor (newest internalDate handled + ids handled within a look-back window before it).
 * 3. List messages matching the source's query since the cursor minus the look-back; read the unknown ones.
 * 4. Claim them with a compare-and-set on the cursor: they become "seen" and "in flight". A poll that
 *    loses the race re-reads the cursor and claims only what the winner did not.
 * 5. Enqueue one event per claimed message, then release the in-flight entries (again by CAS).
 * A poll that dies between 4 and 5 leaves entries in flight; once their lease expires the next poll sends
 * them. That is the one case where a message can be enqueued twice (at-least-once, never at-most-once),
 * and the events carry `correlationId = gmail:<messageId>` for the worker to recognise it.
 * The look-back window covers Gmail search surfacing a message a little after its internalDate.
 */
export interface PollEmailConfig {
  generalQuery: string;
  leadsQuery: string;
  timezone: string;
  bodyLimit: number;
  /** Local hours [start, end) in which the leads poll runs. */
  leadsHours?: { start: number; end: number };
  lookbackMs?: number;
  /** How far back the very first poll looks. */
  initialLookbackMs?: number;
  maxPerPoll?: number;
  /** After this, an in-flight claim is presumed abandoned (longer than the poll function's timeout). */
  leaseMs?: number;
  casAttempts?: number;
}

export interface PollEmailDeps {
  mailbox: Pick<Mailbox, 'listSince' | 'read'>;
  cursors: EmailCursorStore;
  queue: { send(event: EventEnvelope): Promise<void> };
  config: PollEmailConfig;
  log?: {
    info(message: string, fields?: Record<string, unknown>): void;
    warn(message: string, fields?: Record<string, unknown>): void;
  };
}

export type EmailSource = 'general' | 'leads';

export interface PollEmailInput {
  source: EmailSource;
  now: Date;
}

export interface PollEmailResult {
  enqueued: number;
  /** Listed messages that were already handled (or vanished before they could be read). */
  skipped: number;
  outsideHours?: boolean;
}

export function pollEmailConfigFrom(
  config: Pick<Config, 'GMAIL_GENERAL_QUERY' | 'GMAIL_LEADS_QUERY' | 'TEAM_TIMEZONE' | 'EMAIL_BODY_LIMIT'>,
): PollEmailConfig {
  return {
    generalQuery: config.GMAIL_GENERAL_QUERY,
    leadsQuery: config.GMAIL_LEADS_QUERY,
    timezone: config.TEAM_TIMEZONE,
    bodyLimit: config.EMAIL_BODY_LIMIT,
  };
}

const MINUTE = 60_000;
/** Keeps the cursor item far below DynamoDB's 400 KB even on a busy day. */
const MAX_SEEN = 2000;

export function withinLeadsHours(now: Date, timezone: string, hours = { start: 8, end: 20 }): boolean {
  const local = DateTime.fromJSDate(now, { zone: timezone });
  if (!local.isValid) throw new ValidationError(`Unknown time zone: ${timezone}`);
  return local.hour >= hours.start && local.hour < hours.end;
}

function toEnvelope(m: MailMessage, source: EmailSource): EventEnvelope {
  const parsed = eventEnvelope.safeParse({
    id: newId('evt_'),
    correlationId: `gmail:${m.id}`,
    key: `email:${m.threadId}`,
    occurredAt: new Date(m.internalDate).toISOString(),
    type: 'email.received',
    payload: {
      messageId: m.id,
      threadId: m.threadId,
      from: m.from,
      to: m.to,
      subject: m.subject,
      date: m.date,
      text: m.text,
      labels: m.labels,
      source,
      ...(m.messageIdHeader ? { messageIdHeader: m.messageIdHeader } : {}),
      ...(m.references ? { references: m.references } : {}),
      ...(m.dmarc ? { dmarc: m.dmarc } : {}),
    },
  });
  if (!parsed.success) throw new ValidationError(`email ${m.id}: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

function pruneSeen(seen: Record<string, number>, keepFrom: number): Record<string, number> {
  const kept = Object.entries(seen)
    .filter(([, at]) => at >= keepFrom)
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_SEEN);
  return Object.fromEntries(kept);
}

export async function pollEmail(deps: PollEmailDeps, input: PollEmailInput): Promise<PollEmailResult> {
  const cfg = deps.config;
  const lookback = cfg.lookbackMs ?? 10 * MINUTE;
  const lease = cfg.leaseMs ?? 5 * MINUTE;
  const maxPerPoll = cfg.maxPerPoll ?? 25;
  const attempts = cfg.casAttempts ?? 8;
  const now = input.now.getTime();
  const name = `email-${input.source}`;

  if (input.source === 'leads' && !withinLeadsHours(input.now, cfg.timezone, cfg.leadsHours)) {
    deps.log?.info('email poll skipped outside leads hours', { source: input.source });
    return { enqueued: 0, skipped: 0, outsideHours: true };
  }

  const initial: EmailCursor = {
    internalDate: now - (cfg.initialLookbackMs ?? 24 * 60 * MINUTE),
    seen: {},
    inflight: [],
    version: 0,
  };
  let cursor = (await deps.cursors.get(name)) ?? initial;
  const since = cursor.internalDate - lookback;
  const query = input.source === 'leads' ? cfg.leadsQuery : cfg.generalQuery;

  const known = (c: EmailCursor, id: string) => id in c.seen || c.inflight.some((i) => i.id === id);
  const refs = await deps.mailbox.listSince({ query, sinceMs: since, limit: 500 });
  const unknown = refs.filter((r) => !known(cursor, r.id));
  let skipped = refs.length - unknown.length;
  // Gmail lists newest first; take the oldest so a capped poll advances in order.
  const pick = [...unknown].reverse().slice(0, maxPerPoll);
  const capped = unknown.length > pick.length;

  const readOrSkip = async (id: string): Promise<MailMessage | undefined> => {
    try {
      return await deps.mailbox.read(id, { bodyLimit: cfg.bodyLimit });
    } catch (e) {
      if (e instanceof NotFoundError) return undefined; // deleted between list and read
      throw e;
    }
  };
  const prepared = new Map<string, { message: MailMessage; envelope: EventEnvelope }>();
  for (const ref of pick) {
    const m = await readOrSkip(ref.id);
    // Older than the window: handled before the cursor's seen list was pruned (or by the first poll's horizon).
    if (!m || m.internalDate < since) {
      skipped += 1;
      continue;
    }
    prepared.set(m.id, { message: m, envelope: toEnvelope(m, input.source) });
  }

  let claimed: InflightEmail[] = [];
  for (let attempt = 0; ; attempt++) {
    if (attempt >= attempts) {
      // Other polls keep winning the cursor; they are doing this work, and the next schedule retries.
      deps.log?.warn('email poll gave up claiming after repeated conflicts', { source: input.source });
      return { enqueued: 0, skipped };
    }
    const current = cursor;
    const fresh = [...prepared.values()].map((p) => p.message).filter((m) => !known(current, m.id));
    const expired = current.inflight.filter((i) => i.claimedAt + lease <= now);
    if (!fresh.length && !expired.length) {
      deps.log?.info('email poll found nothing new', { source: input.source, skipped });
      return { enqueued: 0, skipped };
    }
    const newest = Math.max(current.internalDate, ...fresh.map((m) => m.internalDate));
    // When the poll was capped, older unread mail may remain: keep the window where it is.
    const internalDate = capped ? current.internalDate : newest;
    const retaken = expired.map((i) => ({ ...i, claimedAt: now }));
    claimed = [...retaken, ...fresh.map((m) => ({ id: m.id, internalDate: m.internalDate, claimedAt: now }))];
    const next = {
      internalDate,
      seen: pruneSeen(
        { ...current.seen, ...Object.fromEntries(fresh.map((m) => [m.id, m.internalDate])) },
        internalDate - lookback,
      ),
      inflight: [...current.inflight.filter((i) => !expired.includes(i)), ...claimed],
    };
    if (await deps.cursors.compareAndSet(name, current.version, next)) break;
    cursor = (await deps.cursors.get(name)) ?? initial;
  }

  const done: string[] = [];
  const failed: string[] = [];
  let firstError: unknown;
  for (const claim of [...claimed].sort((a, b) => a.internalDate - b.internalDate)) {
    try {
      let envelope = prepared.get(claim.id)?.envelope;
      if (!envelope) {
        const m = await readOrSkip(claim.id);
        if (!m) {
          done.push(claim.id);
          continue;
        }
        envelope = toEnvelope(m, input.source);
      }
      await deps.queue.send(envelope);
      done.push(claim.id);
    } catch (e) {
      failed.push(claim.id);
      firstError ??= e;
    }
  }

  await release(deps, name, done, failed, attempts);
  const enqueued = done.length;
  deps.log?.info('email poll enqueued', { source: input.source, enqueued, skipped, failed: failed.length });
  if (firstError !== undefined) throw firstError;
  return { enqueued, skipped };
}

/**
 * Drops sent messages from the in-flight list; failed ones get `claimedAt = 0` so the next poll retries
 * them at once instead of waiting for the lease. If this never lands, the lease still covers it.
 */
async function release(
  deps: PollEmailDeps,
  name: string,
  done: string[],
  failed: string[],
  attempts: number,
) {
  for (let i = 0; i < attempts; i++) {
    const cursor = await deps.cursors.get(name);
    if (!cursor) return;
    const inflight = cursor.inflight
      .filter((x) => !done.includes(x.id))
      .map((x) => (failed.includes(x.id) ? { ...x, claimedAt: 0 } : x));
    const ok = await deps.cursors.compareAndSet(name, cursor.version, {
      internalDate: cursor.internalDate,
      seen: cursor.seen,
      inflight,
    });
    if (ok) return;
  }
  deps.log?.warn('email poll could not release its claims; the lease will', { name, done: done.length });
}
