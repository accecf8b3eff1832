/**
 * Webhook bodies exactly as Quo sends them, per generation (test/contracts/vendor/quo/): legacy webhooks put the
 * object in `data.object` inside `{ id, object: 'event', apiVersion, createdAt, type, data }`; webhooks created
 * with the 2026-03-30 API send `{ id, apiVersion: '2026-03-30', createdAt, type, data: { resource, context,
 * links } }`, the message's parties in the context (`senderIdentifier`, `recipientIdentifiers`), never `from`/`to`.
 * The generation follows the signature scheme, as it does at Quo: a webhook created with the dated API signs
 * with `webhook-*` headers, a legacy one with `openphone-signature`.
 */
export type Scheme = 'legacy' | 'standard';

export const CURRENT_API_VERSION = '2026-03-30';

export interface PayloadMessage {
  id: string;
  from: string;
  to: string[];
  text: string;
  media: Array<{ url: string; type: string }>;
  direction: 'incoming' | 'outgoing';
  status: string;
  createdAt: string;
  phoneNumberId: string;
  conversationId: string;
  userId: string | null;
}

export interface PayloadCall {
  id: string;
  direction: 'incoming' | 'outgoing';
  status: string;
  participant: string;
  line: string;
  phoneNumberId: string;
  conversationId: string;
  userId: string;
  durationSeconds: number;
  createdAt: string;
  answeredAt: string | null;
  completedAt: string;
}

const links = (conversationId: string) => ({ quo: `https://my.quo.com/inbox/${conversationId}` });

function envelope(scheme: Scheme, eventId: string, type: string, at: string, data: unknown) {
  return scheme === 'legacy'
    ? { id: eventId, object: 'event', apiVersion: 'v4', createdAt: at, type, data }
    : { id: eventId, apiVersion: CURRENT_API_VERSION, createdAt: at, type, data };
}

/**
 * `textField: 'body'` and a single-string `to` reproduce app-created legacy webhooks; API-created legacy
 * webhooks use `text` and an array.
 */
export function messageEvent(input: {
  scheme: Scheme;
  type: 'message.received' | 'message.delivered';
  eventId: string;
  at: string;
  message: PayloadMessage;
  appStyle?: boolean;
}) {
  const m = input.message;
  if (input.scheme === 'legacy') {
    const object = {
      id: m.id,
      object: 'message',
      from: m.from,
      to: input.appStyle ? (m.to[0] ?? '') : m.to,
      direction: m.direction,
      [input.appStyle ? 'body' : 'text']: m.text,
      media: m.media,
      status: m.status,
      createdAt: m.createdAt,
      userId: m.userId,
      phoneNumberId: m.phoneNumberId,
      conversationId: m.conversationId,
    };
    return envelope('legacy', input.eventId, input.type, input.at, { object });
  }
  const resource = {
    id: m.id,
    direction: m.direction,
    text: m.text,
    status: m.status,
    createdAt: m.createdAt,
    // Not shown in Quo's webhook examples; the same API version's message resource carries it (README).
    ...(m.media.length ? { media: m.media } : {}),
  };
  const context = {
    phoneNumberId: m.phoneNumberId,
    conversationId: m.conversationId,
    userId: m.userId ?? 'USowner',
    contacts: { ids: [], lookupStatus: 'none' },
    senderIdentifier: m.from,
    recipientIdentifiers: m.to,
  };
  return envelope('standard', input.eventId, input.type, input.at, {
    resource,
    context,
    links: links(m.conversationId),
  });
}

function callContext(c: PayloadCall) {
  return {
    phoneNumberId: c.phoneNumberId,
    conversationId: c.conversationId,
    phoneNumberType: 'shared',
    userId: c.userId,
    contacts: { ids: [], lookupStatus: 'none' },
    participants: { workspace: [c.line], external: [c.participant], resolution: 'available' },
  };
}

export function callCompletedEvent(input: {
  scheme: Scheme;
  eventId: string;
  at: string;
  call: PayloadCall;
}) {
  const c = input.call;
  if (input.scheme === 'legacy') {
    const object = {
      id: c.id,
      object: 'call',
      direction: c.direction,
      status: c.status === 'answered' ? 'completed' : c.status,
      participants: [c.participant],
      duration: c.durationSeconds,
      createdAt: c.createdAt,
      answeredAt: c.answeredAt,
      completedAt: c.completedAt,
      userId: c.userId,
      phoneNumberId: c.phoneNumberId,
    };
    return envelope('legacy', input.eventId, 'call.completed', input.at, { object });
  }
  const resource = {
    id: c.id,
    direction: c.direction,
    status: c.status,
    createdAt: c.createdAt,
    answeredAt: c.answeredAt,
    completedAt: c.completedAt,
    updatedAt: c.completedAt,
    duration: c.durationSeconds,
    hasVoicemail: false,
  };
  return envelope('standard', input.eventId, 'call.completed', input.at, {
    resource,
    context: callContext(c),
    links: links(c.conversationId),
  });
}

export function callSummaryEvent(input: {
  scheme: Scheme;
  eventId: string;
  at: string;
  call: PayloadCall;
  summary: string[];
  nextSteps: string[];
}) {
  const { call: c, summary, nextSteps } = input;
  if (input.scheme === 'legacy') {
    const object = { callId: c.id, object: 'callSummary', status: 'completed', summary, nextSteps };
    return envelope('legacy', input.eventId, 'call.summary.completed', input.at, { object });
  }
  const resource = {
    callId: c.id,
    processingStatus: 'completed',
    summary,
    nextSteps,
    fromPhoneNumber: null,
    handledByAiAgent: false,
    answeredByUserId: c.answeredAt ? c.userId : null,
    jobs: [],
  };
  return envelope('standard', input.eventId, 'call.summary.completed', input.at, {
    resource,
    context: callContext(c),
    links: links(c.conversationId),
  });
}

export function callTranscriptEvent(input: {
  scheme: Scheme;
  eventId: string;
  at: string;
  call: PayloadCall;
  dialogue: Array<{
    content: string;
    start: number;
    end: number;
    identifier: string | null;
    userId: string | null;
  }>;
}) {
  const { call: c, dialogue } = input;
  const fields = { callId: c.id, createdAt: c.completedAt, duration: c.durationSeconds, dialogue };
  if (input.scheme === 'legacy') {
    const object = { ...fields, object: 'callTranscript', status: 'completed' };
    return envelope('legacy', input.eventId, 'call.transcript.completed', input.at, { object });
  }
  return envelope('standard', input.eventId, 'call.transcript.completed', input.at, {
    resource: { ...fields, processingStatus: 'completed' },
    context: callContext(c),
    links: links(c.conversationId),
  });
}
