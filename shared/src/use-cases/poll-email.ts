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
  /** The team's sent mail (cards #18); absent → the sent poll does nothing. */
  sentQuery?: string;
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

export type EmailSource = 'general' | 'leads' | 'sent';

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
  config: Pick<
    Config,
    'GMAIL_GENERAL_QUERY' | 'GMAIL_LEADS_QUERY' | 'GMAIL_SENT_QUERY' | 'TEAM_TIMEZONE' | 'EMAIL_BODY_LIMIT'
  >,
): PollEmailConfig {
  return {
    generalQuery: config.GMAIL_GENERAL_QUERY,
    leadsQuery: config.GMAIL_LEADS_QUERY,
    sentQuery: config.GMAIL_SENT_QUERY,
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
    // Sent mail is not an inbound message: it only withdraws drafts, it never starts a triage run.
    type: source === 'sent' ? 'email.sent' : 'email.received',
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

/** The poll's settings with their defaults filled in, and the name of its cursor. */
interface PollRound {
  deps: PollEmailDeps;
  source: PollEmailInput['source'];
  name: string;
  now: number;
  lookback: number;
  lease: number;
  attempts: number;
  initial: EmailCursor;
}

type Prepared = Map<string, { message: MailMessage; envelope: EventEnvelope }>;

export async function pollEmail(deps: PollEmailDeps, input: PollEmailInput): Promise<PollEmailResult> {
  const cfg = deps.config;
  const now = input.now.getTime();
  if (input.source === 'leads' && !withinLeadsHours(input.now, cfg.timezone, cfg.leadsHours)) {
    deps.log?.info('email poll skipped outside leads hours', { source: input.source });
    return { enqueued: 0, skipped: 0, outsideHours: true };
  }
  const query =
    input.source === 'leads' ? cfg.leadsQuery : input.source === 'sent' ? cfg.sentQuery : cfg.generalQuery;
  const round: PollRound = {
    deps,
    source: input.source,
    name: `email-${input.source}`,
    now,
    lookback: cfg.lookbackMs ?? 10 * MINUTE,
    lease: cfg.leaseMs ?? 5 * MINUTE,
    attempts: cfg.casAttempts ?? 8,
    initial: {
      internalDate: now - (cfg.initialLookbackMs ?? 24 * 60 * MINUTE),
      seen: {},
      inflight: [],
      version: 0,
    },
  };
  const cursor = (await deps.cursors.get(round.name)) ?? round.initial;
  if (!query) return { enqueued: 0, skipped: 0 };
  const { prepared, capped, skipped } = await readNewMail(round, cursor, query);
  const claimed = await claimMail(round, cursor, prepared, capped);
  if (claimed === 'gave_up') {
    // Other polls keep winning the cursor; they are doing this work, and the next schedule retries.
    deps.log?.warn('email poll gave up claiming after repeated conflicts', { source: input.source });
    return { enqueued: 0, skipped };
  }
  if (!claimed.length) {
    deps.log?.info('email poll found nothing new', { source: input.source, skipped });
    return { enqueued: 0, skipped };
  }
  const { done, failed, firstError } = await enqueueClaimed(round, claimed, prepared);
  await release(deps, round.name, done, failed, round.attempts);
  const enqueued = done.length;
  deps.log?.info('email poll enqueued', { source: input.source, enqueued, skipped, failed: failed.length });
  if (firstError !== undefined) throw firstError;
  return { enqueued, skipped };
}

const isKnown = (c: EmailCursor, id: string) => id in c.seen || c.inflight.some((i) => i.id === id);

async function readOrSkip(round: PollRound, id: string): Promise<MailMessage | undefined> {
  try {
    return await round.deps.mailbox.read(id, { bodyLimit: round.deps.config.bodyLimit });
  } catch (e) {
    if (e instanceof NotFoundError) return undefined; // deleted between list and read
    throw e;
  }
}

/** Lists the window and reads what the cursor does not know yet, oldest first, at most `maxPerPoll`. */
async function readNewMail(round: PollRound, cursor: EmailCursor, query: string) {
  const since = cursor.internalDate - round.lookback;
  const refs = await round.deps.mailbox.listSince({ query, sinceMs: since, limit: 500 });
  const unknown = refs.filter((r) => !isKnown(cursor, r.id));
  let skipped = refs.length - unknown.length;
  // Gmail lists newest first; take the oldest so a capped poll advances in order.
  const pick = [...unknown].reverse().slice(0, round.deps.config.maxPerPoll ?? 25);
  const prepared: Prepared = new Map();
  for (const ref of pick) {
    const m = await readOrSkip(round, ref.id);
    // Older than the window: handled before the cursor's seen list was pruned (or by the first poll's horizon).
    if (!m || m.internalDate < since) {
      skipped += 1;
      continue;
    }
    prepared.set(m.id, { message: m, envelope: toEnvelope(m, round.source) });
  }
  return { prepared, capped: unknown.length > pick.length, skipped };
}

/**
 * Claims the fresh mail (and re-takes expired claims) in the cursor by compare-and-set, so two polls never
 * enqueue the same message. Empty when there is nothing to claim; 'gave_up' after `attempts` conflicts.
 */
async function claimMail(
  round: PollRound,
  start: EmailCursor,
  prepared: Prepared,
  capped: boolean,
): Promise<InflightEmail[] | 'gave_up'> {
  const { deps, now, lookback } = round;
  let current = start;
  for (let attempt = 0; attempt < round.attempts; attempt++) {
    const fresh = [...prepared.values()].map((p) => p.message).filter((m) => !isKnown(current, m.id));
    const expired = current.inflight.filter((i) => i.claimedAt + round.lease <= now);
    if (!fresh.length && !expired.length) return [];
    const newest = Math.max(current.internalDate, ...fresh.map((m) => m.internalDate));
    // When the poll was capped, older unread mail may remain: keep the window where it is.
    const internalDate = capped ? current.internalDate : newest;
    const retaken = expired.map((i) => ({ ...i, claimedAt: now }));
    const claimed = [
      ...retaken,
      ...fresh.map((m) => ({ id: m.id, internalDate: m.internalDate, claimedAt: now })),
    ];
    const next = {
      internalDate,
      seen: pruneSeen(
        { ...current.seen, ...Object.fromEntries(fresh.map((m) => [m.id, m.internalDate])) },
        internalDate - lookback,
      ),
      inflight: [...current.inflight.filter((i) => !expired.includes(i)), ...claimed],
    };
    if (await deps.cursors.compareAndSet(round.name, current.version, next)) return claimed;
    current = (await deps.cursors.get(round.name)) ?? round.initial;
  }
  return 'gave_up';
}

/** Enqueues each claim oldest first; a re-taken claim from an earlier poll is read again. */
async function enqueueClaimed(round: PollRound, claimed: InflightEmail[], prepared: Prepared) {
  const done: string[] = [];
  const failed: string[] = [];
  let firstError: unknown;
  for (const claim of [...claimed].sort((a, b) => a.internalDate - b.internalDate)) {
    try {
      let envelope = prepared.get(claim.id)?.envelope;
      if (!envelope) {
        const m = await readOrSkip(round, claim.id);
        if (!m) {
          done.push(claim.id);
          continue;
        }
        envelope = toEnvelope(m, round.source);
      }
      await round.deps.queue.send(envelope);
      done.push(claim.id);
    } catch (e) {
      failed.push(claim.id);
      firstError ??= e;
    }
  }
  return { done, failed, firstError };
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
