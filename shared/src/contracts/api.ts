import type { UIMessage } from 'ai';
import * as z from 'zod';
import { auditEvent, contactRef, conversation, message, pendingAction } from './conversations';
import { followUp } from './followups';
import { run } from './runs';

/**
 * The HTTP API between the PWA and the `api` function: every request body the API accepts and every JSON
 * body it returns. The API validates requests (and its own responses in tests) with these; the PWA parses
 * every response with them, so a drift between the two fails loudly instead of rendering `undefined`.
 * Browser-safe: zod and types only.
 */

export const apiError = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
export type ApiErrorBody = z.infer<typeof apiError>;

/** A signed-in team member as the API sees them (from the verified session token). */
export const sessionUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().optional(),
  isAdmin: z.boolean(),
});
export type SessionUser = z.infer<typeof sessionUser>;

export const meResponse = z.object({ user: sessionUser });
export type MeResponse = z.infer<typeof meResponse>;

/** GET /api/config — public: what the PWA needs before anyone signs in. Never a secret. */
export const publicConfigResponse = z.object({
  stage: z.enum(['local', 'test', 'aws']),
  teamName: z.string(),
  clerkPublishableKey: z.string().optional(),
  vapidPublicKey: z.string().optional(),
  /**
   * Whether this deployment sends Web Push (a VAPID key pair is configured). 'off': the PWA shows push as
   * not set up without asking the push route (whose 404 Chromium would log as a console error). Absent (an
   * older offline copy of the config): the PWA asks the route.
   */
  push: z.enum(['on', 'off']).optional(),
  /**
   * The live channel's socket (issue 19): `wss://…` on AWS, a path on this origin locally (`/live`). Absent:
   * no live channel, the app polls. The app adds `?token=<session token>` when it opens it.
   */
  liveUrl: z.string().optional(),
  /** True only on a local stack with a dev signing key: the PWA then shows the dev sign-in. */
  devSignIn: z.boolean(),
});
export type PublicConfig = z.infer<typeof publicConfigResponse>;

/** A conversation in the shared list, with what the caller has not read yet. */
export const conversationSummary = conversation
  .pick({
    id: true,
    title: true,
    source: true,
    preview: true,
    createdAt: true,
    lastMessageAt: true,
    createdBy: true,
    triggerKey: true,
    pendingCount: true,
    assignee: true,
    lead: true,
    channels: true,
  })
  .extend({
    contact: contactRef.optional(),
    unread: z.boolean(),
    // Inbox #19 markers: urgent, claimed by (cards mirror it on the conversation), done/archived.
    urgent: conversation.shape.urgent,
    status: conversation.shape.status,
    claimedBy: z.string().optional(),
  });
export type ConversationSummary = z.infer<typeof conversationSummary>;

/** The inbox's filters (issue 19); `mine` = claimed by me or assigned to me. */
export const inboxFilter = z.enum(['all', 'needs_approval', 'urgent', 'leads', 'mine', 'done']);
export type InboxFilter = z.infer<typeof inboxFilter>;

export const listConversationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  filter: inboxFilter.default('all'),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().max(400).optional(),
});
export const listConversationsResponse = z.object({
  conversations: z.array(conversationSummary),
  /** More, older conversations exist: pass this as `cursor`. */
  nextCursor: z.string().optional(),
});

/** GET /api/search?q= — full-text search over conversations, matched terms for highlighting. */
export const searchQuery = z.object({ q: z.string().trim().min(1).max(200) });
export const searchResponse = z.object({
  query: z.string(),
  terms: z.array(z.string()),
  results: z.array(
    z.object({
      conversation: conversationSummary,
      matches: z.array(
        z.object({ messageId: z.string(), at: z.string(), author: z.string(), snippet: z.string() }),
      ),
    }),
  ),
  /** How much was searched (the most recent conversations; older ones are named when left out). */
  searched: z.object({ conversations: z.number(), complete: z.boolean() }),
});
export type SearchResponse = z.infer<typeof searchResponse>;
export type ListConversationsResponse = z.infer<typeof listConversationsResponse>;

export const runView = run.pick({
  id: true,
  status: true,
  mode: true,
  awaitingActionId: true,
  outcome: true,
  createdAt: true,
  updatedAt: true,
});
export type RunView = z.infer<typeof runView>;

/** Why the message input is locked (SPEC §3.2 pending-action gate, shown in the PWA). */
export const inputLock = z.object({ reason: z.string(), actionId: z.string() });

export const conversationDetail = z.object({
  conversation: conversationSummary,
  messages: z.array(message),
  actions: z.array(pendingAction),
  /** The active run, else the most recent one; null for a conversation no run has touched. */
  run: runView.nullable(),
  lock: inputLock.nullable(),
  /** Scheduled checks (timed conditional texts and reminders) of this conversation, newest last (follow #20). */
  followups: z.array(followUp).optional(),
});
export const followUpResponse = z.object({ followup: followUp });
export type ConversationDetail = z.infer<typeof conversationDetail>;

/**
 * What the person has seen: the newest message's time as their screen showed it. Without it the mark is "now",
 * which would also cover a message that arrived after the screen last loaded and was never on it.
 */
export const markReadRequest = z.object({ through: z.iso.datetime({ offset: true }).optional() }).strict();
export const markReadResponse = z.object({ ok: z.literal(true), readAt: z.string() });
export const conversationStatusResponse = z.object({ status: z.enum(['open', 'done', 'archived']) });

// In its own module so the streaming function, which serves only chat, does not build every API contract.
export { type ChatRequest, chatRequest } from './chat';

export const approveRequest = z.object({
  /** The draft's arguments as the person edited them; omitted when approved as drafted. */
  args: z.record(z.string(), z.unknown()).optional(),
});
export type ApproveRequest = z.infer<typeof approveRequest>;

export const denyRequest = z.object({
  reason: z.string().trim().max(1000).optional(),
  /** With a reason, the assistant drafts again taking it into account; `false` only stops. */
  redraft: z.boolean().optional(),
});

/** "Redraft…": a new draft with this instruction replaces the card. */
export const redraftRequest = z.object({ instruction: z.string().trim().min(1).max(1000) });
export type RedraftRequest = z.infer<typeof redraftRequest>;

/** One-tap answers to the card's open questions: yes/no, or a short value for a question that takes one. */
export const answerRequest = z.object({
  answers: z
    .array(
      z.object({
        recordAs: z.string().min(1).max(500),
        holds: z.boolean().default(true),
        value: z.string().trim().min(1).max(100).optional(),
      }),
    )
    .min(1)
    .max(10),
});
export type AnswerRequest = z.infer<typeof answerRequest>;
export type DenyRequest = z.infer<typeof denyRequest>;

/**
 * POST /api/conversations/:cid/actions/:aid/by-token — Approve / Deny pressed on a notification (cards #18):
 * no session, the signed single-use action token the push carried instead (domain/action-token.ts).
 */
export const tokenDecisionRequest = z.object({
  token: z.string().min(10).max(2000),
  decision: z.enum(['approve', 'deny']),
});
export type TokenDecisionRequest = z.infer<typeof tokenDecisionRequest>;

export const decisionResponse = z.object({ action: pendingAction });
export type DecisionResponse = z.infer<typeof decisionResponse>;

/** The 409 a second decision gets: the card as it now stands, so the PWA can show who decided what. */
export const decisionConflict = z.object({
  error: z.object({
    code: z.literal('conflict'),
    message: z.string(),
    details: z.object({ action: pendingAction }),
  }),
});

export const instructionsVersion = z.object({
  text: z.string(),
  updatedAt: z.string(),
  updatedBy: z.string(),
});
export const instructionsResponse = z.object({
  current: instructionsVersion.nullable(),
  history: z.array(instructionsVersion),
});
export type InstructionsResponse = z.infer<typeof instructionsResponse>;

export const updateInstructionsRequest = z.object({
  text: z
    .string()
    .trim()
    .min(1, 'instructions cannot be empty')
    .max(20_000, 'keep the instructions under 20000 characters'),
});

export const auditResponse = z.object({ events: z.array(auditEvent) });
export type AuditResponse = z.infer<typeof auditResponse>;

export const devTeamMember = z.object({
  email: z.string(),
  name: z.string(),
  role: z.string(),
  isAdmin: z.boolean(),
});
export const devTeamResponse = z.object({ members: z.array(devTeamMember) });
export type DevTeamMember = z.infer<typeof devTeamMember>;

export const devSessionRequest = z.object({
  email: z.string().trim().toLowerCase().email('enter an email address'),
  name: z.string().trim().max(120).optional(),
});
export const devSessionResponse = z.object({ token: z.string(), expiresAt: z.string() });
export type DevSessionResponse = z.infer<typeof devSessionResponse>;

/**
 * POST /api/chat answers with the `ai` package's UI message stream. Besides text and tool parts, it carries
 * two data parts: `run` (the conversation id — new on a first turn — and where the run is) and `approval`
 * (a card the run is waiting on, replaced in place as its status changes).
 */
export const runProgressStatus = z.enum([
  'queued',
  'running',
  'awaiting_approval',
  'completed',
  'failed',
  'timeout',
]);
export type RunProgressStatus = z.infer<typeof runProgressStatus>;
export const runProgress = z.object({
  conversationId: z.string(),
  runId: z.string().optional(),
  status: runProgressStatus,
});
export type RunProgress = z.infer<typeof runProgress>;

export const chatDataPartSchemas = { run: runProgress, approval: pendingAction };
export type ChatDataParts = { run: RunProgress; approval: z.infer<typeof pendingAction> };
export type ChatUIMessage = UIMessage<never, ChatDataParts>;

/** GET /api/admin/vendor-status: what an admin should know about the configured vendors (issue 13). */
export const vendorNotice = z.object({
  vendor: z.enum(['anthropic', 'google', 'clerk']),
  check: z.string(),
  state: z.enum(['ok', 'warning', 'error']),
  message: z.string(),
});
export type VendorNotice = z.infer<typeof vendorNotice>;
export const vendorStatusResponse = z.object({ notices: z.array(vendorNotice) });
export type VendorStatusResponse = z.infer<typeof vendorStatusResponse>;
