import { z } from 'zod';

/** Domain records shared by the worker, the API and the PWA. Types are inferred from these schemas. */

export const source = z.enum(['sms', 'email', 'chat']);

export const contactRef = z.object({
  name: z.string().optional(),
  phone: z.string().optional(),
  email: z.string().optional(),
  internal: z.boolean().optional(),
  id: z.string().optional(),
});

export const conversation = z.object({
  id: z.string(),
  title: z.string(),
  source,
  contact: contactRef.optional(),
  preview: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastMessageAt: z.string(),
  /** 'system' for triggered runs, else the user id who started the chat. */
  createdBy: z.string(),
  triggerKey: z.string().optional(),
  pendingCount: z.number().int().nonnegative(),
  /** Per-user read marks (user id → ISO time) for unread badges; conversations are shared by the team. */
  readBy: z.record(z.string(), z.string()).default({}),
  /** Who handles this person's property (a user id), from the property-assignment preference (follow #20). */
  assignee: z.string().optional(),
  /** Where a lead stands (follow #20); drives the no-reply rules and the inbox's Leads filter. */
  lead: z.lazy(() => leadInfo).optional(),
  /** The channels this person has used in this thread (follow #20: one thread per person). */
  channels: z.array(z.enum(['sms', 'email', 'chat'])).optional(),
  /**
   * Urgent (inbox #19): set where triage calls an inbound urgent, in the conversation's own write; `pagedAt`
   * when on-call was paged. The inbox puts it first with "Urgent · on-call paged at 14:02".
   */
  urgent: z.object({ at: z.string(), reason: z.string(), pagedAt: z.string().optional() }).optional(),
  /** Inbox #19: absent = open; done leaves the default view until something new arrives. */
  status: z.enum(['open', 'done', 'archived']).optional(),
  /**
   * A conversation that is one person's own, not the team's (follow #20: their daily digest): only that user
   * id lists, searches or opens it. Absent = shared with the team, as every other conversation.
   */
  privateTo: z.string().optional(),
  /** Who said "I'm on it" on a card here last (user id, cards #18): the inbox's "Mine" and its marker. */
  claimedBy: z.string().optional(),
});
export type Conversation = z.infer<typeof conversation>;

export const leadState = z.enum([
  'new',
  'invited',
  'waiting_on_lead',
  'waiting_on_us',
  'showing_booked',
  'disqualified',
]);
export type LeadState = z.infer<typeof leadState>;
export const leadInfo = z.object({
  state: leadState,
  updatedAt: z.string(),
  property: z.string().optional(),
});
export type LeadInfo = z.infer<typeof leadInfo>;

/** The conversation fields follow (#20) writes, and the name a welcomed newcomer gets (#17); all optional. */
export type ThreadFields = Partial<
  Pick<Conversation, 'assignee' | 'lead' | 'channels' | 'title' | 'contact'>
>;
/** The cards' own conversation field (cards #18): the claim mirrored from the card; null when it is released. */
export type CardFields = { claimedBy?: string | null };
/** The inbox's own fields (issue 19): `status: 'open'` is stored as no status at all. */
export type InboxFields = Partial<Pick<Conversation, 'urgent' | 'status'>>;

/**
 * A photo or file on a message, as the PWA sees it: our id (served by `GET /api/media/:id`) and the MIME
 * type. The provider's URL never leaves the server; it is kept in the media record (ports/media-store.ts).
 */
export const mediaRef = z.object({ id: z.string(), type: z.string().nullable() });
export type MediaRef = z.infer<typeof mediaRef>;

/** A phone call in the contact's conversation (follow #20): who, how long, what was said. */
export const callEntry = z.object({
  callId: z.string(),
  direction: z.enum(['incoming', 'outgoing']).optional(),
  /** The outside party's number. */
  with: z.string().optional(),
  status: z.string().nullable().optional(),
  durationSeconds: z.number().nullable().optional(),
  summary: z.array(z.string()).optional(),
  nextSteps: z.array(z.string()).optional(),
  /** Lines of the transcript (speaker: text), cut to what a person reads at a glance. */
  transcript: z.array(z.string()).optional(),
  transcriptTruncated: z.boolean().optional(),
});
export type CallEntry = z.infer<typeof callEntry>;

export const messageRole = z.enum(['inbound', 'user', 'assistant', 'tool', 'system']);
export const message = z.object({
  id: z.string(),
  conversationId: z.string(),
  role: messageRole,
  text: z.string(),
  createdAt: z.string(),
  author: z.object({
    kind: z.enum(['contact', 'user', 'assistant', 'system']),
    name: z.string(),
    id: z.string().optional(),
  }),
  channel: z.enum(['sms', 'email', 'web']).optional(),
  /** Photos and files that came with the message (follow #20). */
  media: z.array(mediaRef).optional(),
  /** On a `system` message: the phone call it records (follow #20). */
  call: callEntry.optional(),
  runId: z.string().optional(),
  actionId: z.string().optional(),
  tool: z
    .object({
      name: z.string(),
      args: z.unknown(),
      result: z.unknown().optional(),
      error: z.string().optional(),
    })
    .optional(),
  /** An inbound email (cards #18): who wrote it and its subject, so a card can show the email it answers. */
  email: z.object({ from: z.string(), subject: z.string() }).optional(),
  /** A research task this message starts or reports on (issue 21): the PWA shows its plan, tree and report. */
  research: z.object({ taskId: z.string(), reportPath: z.string().optional() }).optional(),
});
export type Message = z.infer<typeof message>;

export const reviewScore = z.object({
  score: z.number().min(1).max(10),
  relevance: z.number().min(1).max(10),
  completeness: z.number().min(1).max(10),
  safety: z.number().min(1).max(10),
  quality: z.number().min(1).max(10),
  issues: z.array(z.string()),
  reviewer: z.enum(['rules', 'model']),
});
export type ReviewScore = z.infer<typeof reviewScore>;

export const cardQuestion = z.object({ ask: z.string(), recordAs: z.string() });
export type CardQuestion = z.infer<typeof cardQuestion>;

export const cardRedraft = z.object({
  /** The card this one replaces. */
  fromActionId: z.string(),
  /** 'redraft': an instruction; 'deny': a deny reason; 'answer': open questions answered on the card. */
  kind: z.enum(['redraft', 'deny', 'answer']),
  instruction: z.string().optional(),
  by: z.object({ id: z.string(), name: z.string() }),
  /** Rules mode: the parts of the instruction the template applied, and those it could not. */
  applied: z.array(z.string()).default([]),
  notApplied: z.array(z.string()).default([]),
});
export type CardRedraft = z.infer<typeof cardRedraft>;

/** A person a card writes to, as a person reads them: name · role · property where the contacts know them. */
export const cardPerson = z.object({
  /** The number or address the write goes to, exactly as in the arguments. */
  address: z.string(),
  name: z.string().optional(),
  role: z.string().optional(),
  property: z.string().optional(),
  /** On the team (internal contact). */
  team: z.boolean().optional(),
});
export type CardPerson = z.infer<typeof cardPerson>;

/** FROM (which line or mailbox sends it) and TO (people), fixed when the card is created. */
export const cardPeople = z.object({
  from: z.object({ label: z.string(), address: z.string().optional() }).optional(),
  to: z.array(cardPerson).default([]),
});
export type CardPeople = z.infer<typeof cardPeople>;

export const actionStatus = z.enum([
  'PENDING',
  'APPROVED',
  'DENIED',
  'EXECUTING',
  'EXECUTED',
  'FAILED',
  'EXPIRED',
  /** Withdrawn before anyone decided: a newer message, a reply sent outside Switchboard, or a redraft. */
  'SUPERSEDED',
]);
export type ActionStatus = z.infer<typeof actionStatus>;

export const pendingAction = z.object({
  id: z.string(),
  conversationId: z.string(),
  runId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  /** sha256 of the canonical JSON of `args`; the executor refuses to send anything whose hash differs. */
  argsHash: z.string(),
  summary: z.string(),
  status: actionStatus,
  proposedBy: z.enum(['model', 'planner']),
  reason: z.string(),
  review: z.object({ plan: reviewScore.optional(), execution: reviewScore.optional() }).default({}),
  policy: z
    .object({
      why: z.array(z.string()).default([]),
      missing: z.object({ tools: z.array(z.string()), questions: z.array(z.string()) }).optional(),
      /**
       * The open questions a person can answer on the card (askable facts): `recordAs` is the policy's
       * answer pattern (`pet_approved("cara@…", rabbit)`, or with a variable for a short value).
       */
      questions: z.array(cardQuestion).optional(),
    })
    .optional(),
  /** The team's lessons this draft follows (rules mode, cards #18), one line each, shown on the card. */
  lessons: z.array(z.string()).optional(),
  /**
   * "I'm on it" (cards #18): who took the card and when. Others see it and can still decide; a later claim
   * by someone else replaces it.
   */
  claim: z.object({ by: z.string(), name: z.string(), at: z.string() }).optional(),
  /** Who the write is from and to, in names (cards #18); absent on cards made before it existed. */
  people: cardPeople.optional(),
  /** Why the card was withdrawn (status SUPERSEDED), in words a person reads. */
  supersededReason: z.string().optional(),
  /** The card that replaced this one (a redraft or an answered question), when there is one. */
  supersededBy: z.string().optional(),
  /**
   * A lead's nudge (follow #20): sent only while the lead is where it was when the nudge was drafted (`state`
   * since `since`). A lead who answered, called or was booked meanwhile is not nudged: at approval the card is
   * withdrawn (SUPERSEDED) instead of executed.
   */
  whileLead: z.object({ state: leadState, since: z.string() }).optional(),
  /** On a redrafted card: what it was asked for, by whom, and which parts of the instruction were applied. */
  redraft: cardRedraft.optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  decidedBy: z.string().optional(),
  /** The decider's display name when known (a policy change is committed under it). */
  decidedByName: z.string().optional(),
  decidedAt: z.string().optional(),
  edit: z
    .object({ from: z.record(z.string(), z.unknown()), to: z.record(z.string(), z.unknown()) })
    .optional(),
  denyReason: z.string().optional(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  executedAt: z.string().optional(),
  /** Set when execution starts; an EXECUTING action older than the worker timeout is reconciled. */
  executingSince: z.string().optional(),
  /** A FAILED card a person retried: the new card (its own id, hash and approval). */
  retriedAs: z.string().optional(),
  /** On the new card: the FAILED card it retries. */
  retryOf: z.string().optional(),
  version: z.number().int(),
});
export type PendingAction = z.infer<typeof pendingAction>;

export const pendingIntent = z.object({
  conversationId: z.string(),
  intent: z.string(),
  slots: z.record(z.string(), z.unknown()),
  missing: z.array(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type PendingIntent = z.infer<typeof pendingIntent>;

export const auditEvent = z.object({
  id: z.string(),
  conversationId: z.string(),
  at: z.string(),
  type: z.string(),
  actor: z.string(),
  data: z.unknown().optional(),
});
export type AuditEvent = z.infer<typeof auditEvent>;
