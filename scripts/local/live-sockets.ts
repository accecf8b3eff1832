import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { WebSocketEvent } from '../../functions/live-socket';

export type LiveSocketHandler = (event: WebSocketEvent) => Promise<{ statusCode?: number; body?: string }>;

/** The path the PWA opens locally (LIVE_SOCKET_URL); on AWS it is the WebSocket API's own URL. */
export const LIVE_PATH = '/live';
const MANAGEMENT = /^\/@connections\/([^/]+)$/;

/**
 * The local stand-in for an API Gateway WebSocket API, on the gateway's own port: an upgrade on `/live`
 * becomes a `$connect` event for the same handler module the CDK app deploys (refused unless it answers
 * 200), each text frame a `$default` event, a close `$disconnect`. Its management API answers
 * `POST/GET/DELETE /@connections/{id}` as API Gateway's does (SigV4-signed requests only; 410
 * GoneException for an unknown connection), so the worker's SDK client posts here unchanged.
 */
export function attachLiveSockets(server: Server, handler: () => Promise<LiveSocketHandler>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 32 * 1024 });
  const open = new Map<string, WebSocket>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (url.pathname !== LIVE_PATH) return refuse(socket, 404, 'Not Found');
    void connect(req, socket, head, url);
  });

  async function connect(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
    const connectionId = randomBytes(12).toString('base64');
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
    );
    const fn = await handler();
    const res = await fn({
      requestContext: { routeKey: '$connect', connectionId, eventType: 'CONNECT' },
      headers,
      queryStringParameters: Object.fromEntries(url.searchParams),
    }).catch(() => ({ statusCode: 500 }));
    if ((res.statusCode ?? 200) !== 200) return refuse(socket, res.statusCode ?? 500, 'Refused');
    wss.handleUpgrade(req, socket, head, (ws) => {
      open.set(connectionId, ws);
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const event = { requestContext: { routeKey: '$default', connectionId, eventType: 'MESSAGE' } };
        void fn({ ...event, body: data.toString() }).catch(() => {});
      });
      ws.on('close', () => {
        open.delete(connectionId);
        const event = { requestContext: { routeKey: '$disconnect', connectionId, eventType: 'DISCONNECT' } };
        void fn(event).catch(() => {});
      });
    });
  }

  /** The management API; answers true when the request was one of its paths. */
  function manage(req: IncomingMessage, body: Buffer, res: ServerResponse): boolean {
    const m = MANAGEMENT.exec(new URL(req.url ?? '/', 'http://local').pathname);
    if (!m?.[1]) return false;
    const { status, type, payload } = management(req, body, open.get(decodeURIComponent(m[1])));
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(type ? { 'x-amzn-errortype': type } : {}),
    });
    res.end(payload === undefined ? undefined : JSON.stringify(payload));
    return true;
  }

  return {
    manage,
    close() {
      for (const ws of open.values()) ws.terminate();
      wss.close();
    },
  };
}

function management(
  req: IncomingMessage,
  body: Buffer,
  ws: WebSocket | undefined,
): { status: number; type?: string; payload?: unknown } {
  if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 '))
    return { status: 403, type: 'ForbiddenException', payload: { message: 'Missing Authentication Token' } };
  if (!ws || ws.readyState !== ws.OPEN)
    return { status: 410, type: 'GoneException', payload: { message: 'Gone' } };
  if (req.method === 'POST') {
    if (body.length > 128 * 1024)
      return { status: 413, type: 'PayloadTooLargeException', payload: { message: 'Payload too large' } };
    ws.send(body.toString('utf8'));
    return { status: 200 };
  }
  if (req.method === 'DELETE') {
    ws.close(1000);
    return { status: 204 };
  }
  if (req.method === 'GET') return { status: 200, payload: { connectedAt: new Date().toISOString() } };
  return { status: 404, type: 'NotFoundException', payload: { message: 'Not Found' } };
}

function refuse(socket: Duplex, status: number, reason: string) {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
