import type { Hono } from 'hono';
import { chatRequest } from '../../../shared/src/contracts/api';
import { startChatTurn } from '../../../shared/src/use-cases/stream-run';
import type { AppEnv } from '../app';
import { actorOf, readJson } from '../http';

export interface ChatRouteOptions {
  /**
   * How long one request follows the run before answering `timeout` (the PWA then keeps polling the
   * conversation). API Gateway cuts a request at 30 s, so this stays well under it.
   */
  chatTimeoutMs?: number;
  chatPollMs?: number;
}

/**
 * A chat turn: stored and enqueued, then the run's progress streamed back until it pauses or ends. The `ai`
 * stream protocol (about 75 KB with its provider utilities) is imported on the first chat: in the api
 * function chat is not the hot path (the PWA streams through api-stream, whose entry loads it at init).
 */
export function registerChatRoutes(app: Hono<AppEnv>, opts: ChatRouteOptions = {}) {
  app.post('/api/chat', async (c) => {
    const core = c.get('core');
    const body = await readJson(c, chatRequest);
    const user = actorOf(c);
    const { conversation, messageId } = await startChatTurn(core, {
      text: body.text,
      ...(body.conversationId ? { conversationId: body.conversationId } : {}),
      user,
    });
    const { chatStream, createUIMessageStreamResponse } = await import('../chat-stream');
    const stream = chatStream(core, {
      conversationId: conversation.id,
      afterMessageId: messageId,
      timeoutMs: opts.chatTimeoutMs ?? 20_000,
      pollMs: opts.chatPollMs ?? 300,
      signal: c.req.raw.signal,
    });
    return createUIMessageStreamResponse({ stream });
  });
}
