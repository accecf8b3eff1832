import * as z from 'zod/mini';
import { describeZodIssues, ValidationError } from '../errors';

/**
 * Quo (OpenPhone) webhook deliveries, both generations, parsed into one internal shape.
 *
 * - legacy (webhooks created in the app or with the v1 API, `apiVersion` v2/v4): the message, call, summary or
 *   transcript is `data.object`;
 * - 2026-03-30 (webhooks created with the dated API): `data.resource` is the object, `data.context` the line,
 *   conversation and parties (a message has no `from`/`to`: they are `context.senderIdentifier` and
 *   `context.recipientIdentifiers`), `data.links.quo` a deep link.
 * Sources and what the docs leave open: test/contracts/vendor/quo/README.md. Written with `zod/mini` because it is
 * on the webhook function's path (bundle budget, issue 16). Unknown fields are ignored and vendor enums stay plain
 * strings, so a vendor addition is not an outage; what we act on is bounded so a hostile body is a clear 400.
 */

const id = z.string().check(z.minLength(1), z.maxLength(200));
const party = z.string().check(z.minLength(1), z.maxLength(60));
const parties = z.array(party).check(z.maxLength(20));
const stamp = z.string().check(z.minLength(1), z.maxLength(40));
const optStr = z.optional(z.nullable(z.string().check(z.maxLength(200))));
const text = z.optional(z.nullable(z.string().check(z.maxLength(10_000))));
const direction = z.enum(['incoming', 'outgoing']);
const media = z.optional(
  z.nullable(
    z
      .array(
        z.union([
          z.string().check(z.maxLength(2000)),
          z.object({ url: z.string().check(z.maxLength(2000)), type: optStr }),
        ]),
      )
      .check(z.maxLength(50)),
  ),
);

const legacyMessage = z.object({
  id,
  from: party,
  to: z.union([party, parties.check(z.minLength(1))]),
  direction,
  text,
  body: text,
  media,
  status: optStr,
  createdAt: stamp,
  userId: optStr,
  phoneNumberId: optStr,
  conversationId: optStr,
});

const messageContext = z.object({
  phoneNumberId: optStr,
  conversationId: optStr,
  userId: optStr,
  senderIdentifier: party,
  recipientIdentifiers: parties,
});
const currentMessage = z.object({
  resource: z.object({ id, direction, text, media, status: optStr, createdAt: stamp }),
  context: messageContext,
});

const callContext = z.optional(
  z.object({
    phoneNumberId: optStr,
    conversationId: optStr,
    userId: optStr,
    participants: z.optional(z.object({ workspace: z.optional(parties), external: z.optional(parties) })),
  }),
);
const duration = z.optional(z.nullable(z.number().check(z.gte(0))));

const legacyCall = z.object({
  id,
  direction,
  status: optStr,
  participants: z.optional(parties),
  duration,
  createdAt: stamp,
  answeredAt: optStr,
  completedAt: optStr,
  userId: optStr,
  phoneNumberId: optStr,
  conversationId: optStr,
});
const currentCall = z.object({
  resource: z.object({
    id,
    direction,
    status: optStr,
    duration,
    createdAt: stamp,
    answeredAt: optStr,
    completedAt: optStr,
    hasVoicemail: z.optional(z.nullable(z.boolean())),
  }),
  context: callContext,
});

const lines = z.optional(z.nullable(z.array(z.string().check(z.maxLength(5000))).check(z.maxLength(100))));
const summaryFields = { callId: id, summary: lines, nextSteps: lines };
const legacySummary = z.object({ ...summaryFields, status: optStr });
const currentSummary = z.object({
  resource: z.object({ ...summaryFields, processingStatus: optStr }),
  context: callContext,
});

const dialogue = z.optional(
  z.nullable(
    z
      .array(
        z.object({
          content: z.string().check(z.maxLength(20_000)),
          start: z.number(),
          end: z.number(),
          identifier: optStr,
          userId: optStr,
        }),
      )
      .check(z.maxLength(5000)),
  ),
);
const legacyTranscript = z.object({
  callId: id,
  status: optStr,
  duration,
  createdAt: z.optional(stamp),
  dialogue,
});
const currentTranscript = z.object({
  resource: z.object({
    callId: id,
    processingStatus: optStr,
    duration,
    createdAt: z.optional(stamp),
    dialogue,
  }),
  context: callContext,
});

const envelope = z.object({
  id,
  type: z.string().check(z.minLength(1), z.maxLength(100)),
  apiVersion: z.optional(z.nullable(z.string().check(z.maxLength(40)))),
  createdAt: stamp,
  data: z.optional(z.unknown()),
});

// ---------------------------------------------------------------- the internal event

export type OpenPhoneGeneration = 'legacy' | '2026-03-30';
export interface OpenPhoneMedia {
  url: string;
  type: string | null;
}
export interface OpenPhoneWebhookMessage {
  id: string;
  direction: 'incoming' | 'outgoing';
  from: string;
  to: string[];
  text: string;
  media: OpenPhoneMedia[];
  status: string | null;
  createdAt: string;
  phoneNumberId: string | null;
  conversationId: string | null;
  userId: string | null;
}
interface CallScope {
  /** The outside parties of the call (context.participants.external, or the legacy `participants`). */
  participants: string[];
  phoneNumberId: string | null;
  conversationId: string | null;
  userId: string | null;
}
export interface OpenPhoneWebhookCall extends CallScope {
  id: string;
  direction: 'incoming' | 'outgoing';
  status: string | null;
  durationSeconds: number | null;
  createdAt: string;
  answeredAt: string | null;
  completedAt: string | null;
  hasVoicemail: boolean | null;
}
export interface OpenPhoneWebhookSummary extends CallScope {
  callId: string;
  status: string | null;
  summary: string[];
  nextSteps: string[];
}
export interface OpenPhoneWebhookTranscript extends CallScope {
  callId: string;
  status: string | null;
  durationSeconds: number | null;
  dialogue: Array<{
    speaker: string | null;
    userId: string | null;
    text: string;
    startSeconds: number;
    endSeconds: number;
  }>;
}

interface Common {
  eventId: string;
  /** The vendor's type as sent (legacy summaries may say `callSummary`). */
  vendorType: string;
  generation: OpenPhoneGeneration;
  apiVersion: string | null;
  createdAt: string;
}
export type OpenPhoneWebhookEvent = Common &
  (
    | { kind: 'message.received' | 'message.delivered'; message: OpenPhoneWebhookMessage }
    | { kind: 'call.completed'; call: OpenPhoneWebhookCall }
    | { kind: 'call.summary.completed'; summary: OpenPhoneWebhookSummary }
    | { kind: 'call.transcript.completed'; transcript: OpenPhoneWebhookTranscript }
    | { kind: 'other' }
  );

/** Legacy guide samples name summaries and transcripts `callSummary` / `callTranscript`. */
const KIND_OF: Record<string, Exclude<OpenPhoneWebhookEvent['kind'], 'other'>> = {
  'message.received': 'message.received',
  'message.delivered': 'message.delivered',
  'call.completed': 'call.completed',
  'call.summary.completed': 'call.summary.completed',
  callSummary: 'call.summary.completed',
  'call.transcript.completed': 'call.transcript.completed',
  callTranscript: 'call.transcript.completed',
};

/**
 * Validates a parsed JSON webhook body into the internal event. Throws ValidationError (a 400 naming the field)
 * when the body is not an event, or is an event we act on whose object is malformed; any other well-formed type
 * comes back as `other` so the edge can record and acknowledge it.
 */
export function parseOpenPhoneWebhook(json: unknown): OpenPhoneWebhookEvent {
  const env = envelope.safeParse(json);
  if (!env.success) throw invalid('OpenPhone webhook', env.error.issues);
  const { id: eventId, type, apiVersion, createdAt, data } = env.data;
  const kind = KIND_OF[type];
  const generation = generationOf(data);
  const common: Common = {
    eventId,
    vendorType: type,
    generation: generation ?? 'legacy',
    apiVersion: apiVersion ?? null,
    createdAt,
  };
  if (!kind) return { ...common, kind: 'other' };
  if (!generation) {
    throw new ValidationError(
      `Invalid ${type} webhook: data: expected data.object (legacy) or data.resource`,
    );
  }
  const body = generation === 'legacy' ? (data as { object: unknown }).object : data;
  switch (kind) {
    case 'message.received':
    case 'message.delivered':
      return { ...common, kind, message: message(generation, body, type) };
    case 'call.completed':
      return { ...common, kind, call: call(generation, body, type) };
    case 'call.summary.completed':
      return { ...common, kind, summary: summary(generation, body, type) };
    case 'call.transcript.completed':
      return { ...common, kind, transcript: transcript(generation, body, type) };
  }
}

function generationOf(data: unknown): OpenPhoneGeneration | null {
  if (typeof data !== 'object' || data === null) return null;
  if ('resource' in data && typeof data.resource === 'object' && data.resource !== null) return '2026-03-30';
  if ('object' in data && typeof data.object === 'object' && data.object !== null) return 'legacy';
  return null;
}

function invalid(what: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  return new ValidationError(`Invalid ${what}: ${describeZodIssues(issues)}`);
}

function checked<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  what: string,
  prefix: string,
): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw invalid(
    `${what} webhook`,
    r.error.issues.map((i) => ({ ...i, path: [prefix, ...i.path] })),
  );
}

function message(gen: OpenPhoneGeneration, body: unknown, type: string): OpenPhoneWebhookMessage {
  if (gen === 'legacy') {
    const m = checked(legacyMessage, body, type, 'data.object');
    return {
      id: m.id,
      direction: m.direction,
      from: m.from,
      to: Array.isArray(m.to) ? m.to : [m.to],
      text: m.text ?? m.body ?? '',
      media: mediaOf(m.media),
      status: m.status ?? null,
      createdAt: m.createdAt,
      phoneNumberId: m.phoneNumberId ?? null,
      conversationId: m.conversationId ?? null,
      userId: m.userId ?? null,
    };
  }
  const { resource: r, context: c } = checked(currentMessage, body, type, 'data');
  return {
    id: r.id,
    direction: r.direction,
    from: c.senderIdentifier,
    to: c.recipientIdentifiers,
    text: r.text ?? '',
    media: mediaOf(r.media),
    status: r.status ?? null,
    createdAt: r.createdAt,
    phoneNumberId: c.phoneNumberId ?? null,
    conversationId: c.conversationId ?? null,
    userId: c.userId ?? null,
  };
}

function mediaOf(list: z.output<typeof media>): OpenPhoneMedia[] {
  return (list ?? []).map((m) =>
    typeof m === 'string' ? { url: m, type: null } : { url: m.url, type: m.type ?? null },
  );
}

type Ctx = z.output<typeof callContext>;
function scope(
  c: Ctx,
  legacy?: {
    participants?: string[];
    phoneNumberId?: string | null;
    conversationId?: string | null;
    userId?: string | null;
  },
): CallScope {
  return {
    participants: c?.participants?.external ?? legacy?.participants ?? [],
    phoneNumberId: c?.phoneNumberId ?? legacy?.phoneNumberId ?? null,
    conversationId: c?.conversationId ?? legacy?.conversationId ?? null,
    userId: c?.userId ?? legacy?.userId ?? null,
  };
}

function call(gen: OpenPhoneGeneration, body: unknown, type: string): OpenPhoneWebhookCall {
  if (gen === 'legacy') {
    const c = checked(legacyCall, body, type, 'data.object');
    return {
      ...scope(undefined, c),
      id: c.id,
      direction: c.direction,
      status: c.status ?? null,
      durationSeconds: c.duration ?? null,
      createdAt: c.createdAt,
      answeredAt: c.answeredAt ?? null,
      completedAt: c.completedAt ?? null,
      hasVoicemail: null,
    };
  }
  const { resource: r, context } = checked(currentCall, body, type, 'data');
  return {
    ...scope(context),
    id: r.id,
    direction: r.direction,
    status: r.status ?? null,
    durationSeconds: r.duration ?? null,
    createdAt: r.createdAt,
    answeredAt: r.answeredAt ?? null,
    completedAt: r.completedAt ?? null,
    hasVoicemail: r.hasVoicemail ?? null,
  };
}

function summary(gen: OpenPhoneGeneration, body: unknown, type: string): OpenPhoneWebhookSummary {
  const [s, status, context] =
    gen === 'legacy'
      ? ((b) => [b, b.status, undefined] as const)(checked(legacySummary, body, type, 'data.object'))
      : ((b) => [b.resource, b.resource.processingStatus, b.context] as const)(
          checked(currentSummary, body, type, 'data'),
        );
  return {
    ...scope(context),
    callId: s.callId,
    status: status ?? null,
    summary: s.summary ?? [],
    nextSteps: s.nextSteps ?? [],
  };
}

function transcript(gen: OpenPhoneGeneration, body: unknown, type: string): OpenPhoneWebhookTranscript {
  const [t, status, context] =
    gen === 'legacy'
      ? ((b) => [b, b.status, undefined] as const)(checked(legacyTranscript, body, type, 'data.object'))
      : ((b) => [b.resource, b.resource.processingStatus, b.context] as const)(
          checked(currentTranscript, body, type, 'data'),
        );
  return {
    ...scope(context),
    callId: t.callId,
    status: status ?? null,
    durationSeconds: t.duration ?? null,
    dialogue: (t.dialogue ?? []).map((d) => ({
      speaker: d.identifier ?? null,
      userId: d.userId ?? null,
      text: d.content,
      startSeconds: d.start,
      endSeconds: d.end,
    })),
  };
}
