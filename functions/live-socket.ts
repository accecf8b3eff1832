import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { getCore } from '../shared/src/composition/core';
import { LIVE_TOKEN_PARAM } from '../shared/src/contracts/live';
import { isAppError } from '../shared/src/errors';
import {
  connectLive,
  disconnectLive,
  type LiveSocketDeps,
  receiveLiveMessage,
} from '../shared/src/use-cases/live-socket';
import { verifierFor } from './api/session-guard';

/**
 * The event API Gateway passes a WebSocket route's Lambda integration (the fields we read). `$connect`
 * carries the upgrade request's headers and query string; the others carry the frame's body.
 */
export interface WebSocketEvent {
  requestContext: { routeKey: string; connectionId: string; eventType?: string };
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

/** The live channel's one function: `$connect`, `$disconnect` and `$default` of the WebSocket API. */
export const handler = async (event: WebSocketEvent): Promise<APIGatewayProxyStructuredResultV2> => {
  const core = await getCore('live-socket');
  const deps: LiveSocketDeps = {
    connections: core.liveConnections,
    live: core.live,
    verifySession: verifierFor(core),
    appOrigin: new URL(core.config.PUBLIC_BASE_URL).origin,
    clock: core.clock,
  };
  const { routeKey, connectionId } = event.requestContext;
  try {
    if (routeKey === '$connect') {
      const headers = Object.fromEntries(
        Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
      );
      await connectLive(deps, {
        connectionId,
        token: event.queryStringParameters?.[LIVE_TOKEN_PARAM],
        origin: headers.origin,
      });
    } else if (routeKey === '$disconnect') {
      await disconnectLive(deps, connectionId);
    } else {
      const body =
        event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      await receiveLiveMessage(deps, { connectionId, body: body ?? undefined });
    }
    return { statusCode: 200 };
  } catch (e) {
    // A refused $connect answers the upgrade with this status; on other routes the socket stays open.
    if (isAppError(e)) return { statusCode: e.status, body: e.message };
    core.log.error('live.unhandled', { routeKey, error: String(e) });
    return { statusCode: 500 };
  }
};
