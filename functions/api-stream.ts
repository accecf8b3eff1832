import { streamHandle } from 'hono/aws-lambda';
import { getApiDeps } from '../shared/src/composition/api';
import { createApp } from './api/app';

/**
 * The API app behind a Lambda function URL in RESPONSE_STREAM mode, used for `/api/chat` (API Gateway would
 * buffer the stream). A chat turn runs here, with the worker's own use case and deps, so the model's text
 * reaches the PWA as it is written (issue 19); those deps load on the first chat, not at cold start.
 * Authentication is the app's own session guard, as on every route.
 */
export const app = createApp(getApiDeps, {
  inlineChat: async () => {
    const { getWorkerDeps } = await import('../shared/src/composition/worker');
    const deps = await getWorkerDeps();
    return { deps, backstopDelaySeconds: deps.core.config.CHAT_BACKSTOP_DELAY_SECONDS };
  },
});
export const handler = streamHandle(app);

/**
 * Chat is this function's hot path, so the stream protocol the chat route imports on first use in the api
 * function (routes/chat.ts) is part of this one's init: re-exported here, it is bundled into what the entry
 * loads rather than a chunk loaded by the first chat.
 */
export { chatStream } from './api/chat-stream';
