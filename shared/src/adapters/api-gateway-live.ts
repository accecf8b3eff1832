import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { LiveUpdate } from '../contracts/live';
import type { LiveConnection, LiveConnections, LiveUpdates } from '../ports/live-updates';
import type { Log } from '../ports/logger';

/**
 * How long a publisher reuses the list of open sockets by default. An app catches up once this has passed
 * after its socket opened (web/src/lib/use-resource.ts, LIVE_SETTLE_MS, kept above it by a test).
 */
export const LIVE_CONNECTIONS_CACHE_MS = 1_000;

export interface ApiGatewayLiveOptions {
  /**
   * The WebSocket API's management endpoint (`https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`;
   * locally the gateway's URL, which answers `/@connections/{id}` the same way).
   */
  endpoint: string;
  region: string;
  connections: LiveConnections;
  log: Log;
  clock?: () => Date;
  /**
   * How long the list of open sockets is reused by this container (default 1 s). Every change would otherwise
   * cost a DynamoDB Query inside the agent's turn (budget: ≤ 6 requests, issue 14): a turn's writes land
   * within about a second, so a turn pays one Query. A change inside this window after an app's socket
   * connected can miss that app: the app reloads right after its socket opens and once more after the window.
   */
  cacheMs?: number;
  /** One post never holds the caller longer than this (a stuck socket must not slow a turn). */
  timeoutMs?: number;
}

/**
 * The live channel on API Gateway WebSocket APIs: every open app is one connection; an update is posted to
 * each (`PostToConnection`, SDK client loaded on the first publish so cold starts do not pay for it). A 410
 * (GoneException: the socket closed and its $disconnect was lost) deletes the connection item. Nothing
 * here throws: the port is best-effort and the app polls when updates do not arrive.
 */
export function apiGatewayLiveUpdates(opts: ApiGatewayLiveOptions): LiveUpdates {
  const clock = opts.clock ?? (() => new Date());
  const cacheMs = opts.cacheMs ?? LIVE_CONNECTIONS_CACHE_MS;
  let client: Promise<ApiGatewayManagementApiClient> | undefined;
  let cached: { at: number; list: Promise<LiveConnection[]> } | undefined;

  const getClient = () => {
    client ??= import('@aws-sdk/client-apigatewaymanagementapi').then(
      ({ ApiGatewayManagementApiClient }) =>
        new ApiGatewayManagementApiClient({ endpoint: opts.endpoint, region: opts.region }),
    );
    return client;
  };
  /** The open sockets; `fresh` reads them anew (and renews the cache) whatever the cache's age. */
  const connections = (fresh = false) => {
    const now = clock().getTime();
    if (fresh || !cached || now - cached.at > cacheMs) {
      const list = opts.connections.list();
      cached = { at: now, list };
      list.catch(() => {
        cached = undefined;
      });
    }
    return cached.list;
  };
  const forget = (id: string) => {
    if (cached)
      cached = { at: cached.at, list: cached.list.then((l) => l.filter((c) => c.connectionId !== id)) };
  };

  async function postTo(c: LiveConnection, data: Uint8Array) {
    const { PostToConnectionCommand } = await import('@aws-sdk/client-apigatewaymanagementapi');
    try {
      await (await getClient()).send(
        new PostToConnectionCommand({ ConnectionId: c.connectionId, Data: data }),
        {
          abortSignal: AbortSignal.timeout(opts.timeoutMs ?? 2_000),
        },
      );
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name === 'GoneException') {
        forget(c.connectionId);
        await opts.connections.delete(c.connectionId).catch(() => {});
        return;
      }
      opts.log.warn('live.post_failed', { connectionId: c.connectionId, error: String(e) });
    }
  }

  return {
    async publish(update: LiveUpdate) {
      try {
        // Presence is always sent to the sockets open now. It is the one update that follows a socket's
        // opening within the cache's window: a newcomer says "viewing" as its socket opens, and the viewer
        // already there answers at once; with the list cached from just before the newcomer connected, the
        // answer went to everyone but the newcomer, who saw the other viewer only at the next heartbeat (the
        // cards-team e2e test's race). Presence comes from the live-socket function, never an agent turn,
        // so the extra Query does not touch the turn's request budget.
        const list = await connections(update.type === 'presence');
        if (!list.length) return;
        const data = new TextEncoder().encode(JSON.stringify(update));
        await Promise.all(list.map((c) => postTo(c, data)));
      } catch (e) {
        opts.log.warn('live.publish_failed', { type: update.type, error: String(e) });
      }
    },
  };
}
