import { streamHandle } from 'hono/aws-lambda';
import { app } from './api';

/**
 * The same API app behind a Lambda function URL in RESPONSE_STREAM mode, used for `/api/chat` so the
 * UI message stream (text, tool activity, approval requests) reaches the PWA while the run progresses —
 * API Gateway would buffer it. Authentication is the app's own session guard, as on every route.
 */
export const handler = streamHandle(app);

/**
 * Chat is this function's hot path, so the stream protocol the chat route imports on first use in the api
 * function (routes/chat.ts) is part of this one's init: re-exported here, it is bundled into what the entry
 * loads rather than a chunk loaded by the first chat.
 */
export { chatStream } from './api/chat-stream';
