import { streamHandle } from 'hono/aws-lambda';
import { app } from './api';

/**
 * The same API app behind a Lambda function URL in RESPONSE_STREAM mode, used for `/api/chat` so the
 * UI message stream (text, tool activity, approval requests) reaches the PWA while the run progresses —
 * API Gateway would buffer it. Authentication is the app's own session guard, as on every route.
 */
export const handler = streamHandle(app);
