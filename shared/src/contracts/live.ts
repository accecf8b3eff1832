import * as z from 'zod/mini';
import { boundedString } from '../zod-mini';

/**
 * What the live channel carries from the system to open apps (server → browser). The same shapes go over
 * the API Gateway WebSocket API on AWS and the local gateway's WebSocket (`/live`) in `npm start`. They are
 * hints, not data: the app refetches what changed through the API, so a lost update costs only latency
 * (the app also polls while the socket is down). zod/mini: the worker and webhook bundles import this.
 */
const id = boundedString(1, 200);

export const conversationChanged = z.object({
  type: z.literal('conversation.changed'),
  conversationId: id,
});
export const messageCreated = z.object({
  type: z.literal('message.created'),
  conversationId: id,
  messageId: id,
});
export const cardChanged = z.object({
  type: z.literal('card.changed'),
  conversationId: id,
  actionId: id,
  /** The card's status after the change (PENDING for a new card). */
  status: boundedString(1, 40),
  /** Cards #18: the card changed without a status change (a claim), so it is not a new card. */
  update: z.optional(z.boolean()),
});
export const presence = z.object({
  type: z.literal('presence'),
  conversationId: id,
  userId: id,
  name: boundedString(0, 200),
  state: z.enum(['viewing', 'left']),
});
export const researchNode = z.object({
  type: z.literal('research.node'),
  taskId: id,
  nodeId: id,
  status: boundedString(1, 40),
});
/** A model text delta of a run streaming to the browser (token streaming; never stored). */
export const delta = z.object({ type: z.literal('delta'), runId: id, text: z.string() });

export const liveUpdate = z.discriminatedUnion('type', [
  conversationChanged,
  messageCreated,
  cardChanged,
  presence,
  researchNode,
  delta,
]);
export type LiveUpdate = z.infer<typeof liveUpdate>;

/**
 * What a browser may send on the socket (browser → server). API Gateway picks the route from `action`
 * (route selection expression `$request.body.action`); anything else lands on `$default` and is ignored.
 * `ping` keeps the connection inside API Gateway's 10-minute idle timeout; `presence` says the person is
 * looking at a conversation (the server adds who they are from the connection, never from the message).
 */
export const liveClientMessage = z.discriminatedUnion('action', [
  z.object({ action: z.literal('ping') }),
  z.object({
    action: z.literal('presence'),
    conversationId: id,
    state: z.enum(['viewing', 'left']),
  }),
]);
export type LiveClientMessage = z.infer<typeof liveClientMessage>;

/** GET /api/live: where this deployment's socket is (absent url: no live channel, the app polls). */
export const liveInfo = z.object({ url: z.optional(z.string()) });
export type LiveInfo = z.infer<typeof liveInfo>;

/** The query parameter the browser puts its session token in (a browser WebSocket cannot send headers). */
export const LIVE_TOKEN_PARAM = 'token';
