import * as z from 'zod';

/**
 * `POST /api/chat`'s body. Apart from ./api.ts (which re-exports it) because the streaming function serves this
 * one route: importing all the API's contracts there would build each of their schemas at its cold start
 * (issue 16).
 */
export const chatRequest = z.object({
  /** Omitted to start a new conversation. */
  conversationId: z.string().min(1).max(200).optional(),
  text: z.string().trim().min(1, 'type a message first').max(8000, 'keep a message under 8000 characters'),
});
export type ChatRequest = z.infer<typeof chatRequest>;
