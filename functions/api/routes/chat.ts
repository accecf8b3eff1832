import { createUIMessageStreamResponse } from 'ai';
import type { Hono } from 'hono';
import { chatRequest } from '../../../shared/src/contracts/api';
import { startChatTurn } from '../../../shared/src/use-cases/stream-run';
import type { AppEnv } from '../app';
import { chatStream } from '../chat-stream';
import { actorOf, readJson } from '../http';

export interface ChatRouteOptions {
  /**
   * How long one request follows the run before answering `timeout` (the PWA then keeps polling the
   * conversation). API Gateway cuts a request at 30 s, so this stays well under it.
   */
  chatTimeoutMs?: number;
  chatPollMs?: number;
}

/** A chat turn: stored and enqueued, then the run's progress streamed back until it pauses or ends. */
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
