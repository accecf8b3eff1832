import type { Hono } from 'hono';
import { chatRequest } from '../../../shared/src/contracts/chat';
import type { ProcessEventDeps } from '../../../shared/src/use-cases/process-event';
import { startChatTurn, watchRun } from '../../../shared/src/use-cases/stream-run';
import type { AppEnv } from '../app';
import { actorOf, readJson } from '../http';

export interface InlineChat {
  /** The worker's use case and its deps (composition/worker.ts), built on the first chat of a cold start. */
  deps: ProcessEventDeps;
  /**
   * How long the queued backstop copy of the turn waits: longer than this function may run, so it only ever
   * meets a finished turn (a duplicate in the ledger) — unless the function died mid-turn.
   */
  backstopDelaySeconds: number;
}

export interface ChatRouteOptions {
  /**
   * How long one request follows the run before answering `timeout` (the PWA then keeps polling the
   * conversation). API Gateway cuts a request at 30 s, so this stays well under it.
   */
  chatTimeoutMs?: number;
  chatPollMs?: number;
  /**
   * Set in the streaming function (functions/api-stream.ts): the turn runs here and the model's text streams
   * to the browser as it is written (issue 19). Without it the worker runs the turn and the stream follows
   * what it stores.
   */
  inlineChat?: () => Promise<InlineChat>;
}

/**
 * A chat turn: stored, then run here (streaming) or by the worker (followed), until it pauses or ends. The
 * `ai` stream protocol (about 75 KB with its provider utilities) and the inline turn (the worker's event
 * pipeline) are imported on the first chat of a cold start, in both API functions: in the api function chat
 * is not the hot path at all, and in api-stream the first chat loads the worker's deps anyway.
 */
export function registerChatRoutes(app: Hono<AppEnv>, opts: ChatRouteOptions = {}) {
  app.post('/api/chat', async (c) => {
    const core = c.get('core');
    const body = await readJson(c, chatRequest);
    const user = actorOf(c);
    const inline = opts.inlineChat ? await opts.inlineChat() : undefined;
    const { conversation, messageId, event } = await startChatTurn(core, {
      text: body.text,
      ...(body.conversationId ? { conversationId: body.conversationId } : {}),
      user,
      ...(inline ? { queueDelaySeconds: inline.backstopDelaySeconds } : {}),
    });
    const updates = inline
      ? (await import('../../../shared/src/use-cases/run-chat-inline')).runChatInline(inline.deps, event)
      : watchRun(core, {
          conversationId: conversation.id,
          afterMessageId: messageId,
          timeoutMs: opts.chatTimeoutMs ?? 20_000,
          pollMs: opts.chatPollMs ?? 300,
          signal: c.req.raw.signal,
        });
    const { chatStream, createUIMessageStreamResponse } = await import('../chat-stream');
    const stream = chatStream(core, { conversationId: conversation.id, afterMessageId: messageId }, updates);
    return createUIMessageStreamResponse({ stream });
  });
}
