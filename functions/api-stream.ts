import { streamHandle } from 'hono/aws-lambda';
import { getApiDeps } from '../shared/src/composition/api';
import { chatTurnsSettled } from '../shared/src/use-cases/chat-turns';
import { createChatApp } from './api/chat-app';

/**
 * The API app behind a Lambda function URL in RESPONSE_STREAM mode, used for `/api/chat` (API Gateway would
 * buffer the stream). A chat turn runs here, with the worker's own use case and deps, so the model's text
 * reaches the PWA as it is written (issue 19); those deps load on the first chat, not at cold start.
 * Authentication is the app's own session guard, as on every route.
 */
export const app = createChatApp(getApiDeps, {
  inlineChat: async () => {
    const { getWorkerDeps } = await import('../shared/src/composition/worker');
    const deps = await getWorkerDeps();
    return { deps, backstopDelaySeconds: deps.core.config.CHAT_BACKSTOP_DELAY_SECONDS };
  },
});

type StreamingHandler = (event: unknown, stream: unknown, context: unknown) => Promise<void>;
const serve = streamHandle(app) as unknown as StreamingHandler;
/** The Lambda runtime's global (scripts/local/lambda-streaming.ts stands in for it locally). */
const lambda = (globalThis as unknown as { awslambda: { streamifyResponse<T>(fn: T): T } }).awslambda;

/**
 * Hono's streaming handler, returning only once the turn it started has ended: when the browser goes away
 * mid-answer the response ends early, and Lambda would freeze the container with the turn half done.
 */
export const handler = lambda.streamifyResponse<StreamingHandler>(async (event, stream, context) => {
  try {
    await serve(event, stream, context);
  } finally {
    await chatTurnsSettled();
  }
});
