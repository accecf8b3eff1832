import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { installLambdaStreamingGlobals, responseStreamFor } from './lambda-streaming';
import { attachLiveSockets, type LiveSocketHandler } from './live-sockets';

export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

export type StreamingHandler = (
  event: APIGatewayProxyEventV2,
  responseStream: Writable,
  context: Context,
) => Promise<void>;

export interface Route {
  method: string | '*';
  /** Exact path or a prefix ending in `*` (`/api/*`). */
  path: string;
  handler: () => Promise<HttpHandler>;
  /** A response-streaming handler (Lambda function URL, RESPONSE_STREAM): the body is passed through live. */
  streaming?: () => Promise<StreamingHandler>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

function matches(route: Route, method: string, path: string) {
  if (route.method !== '*' && route.method !== method) return false;
  return route.path.endsWith('*') ? path.startsWith(route.path.slice(0, -1)) : path === route.path;
}

/** Builds the API Gateway v2 (HTTP API, payload 2.0) event that Lambda would receive for this request. */
export function toApiGatewayEvent(
  req: IncomingMessage,
  body: Buffer,
  routeKey: string,
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined && k !== 'cookie') headers[k] = Array.isArray(v) ? v.join(',') : v;
  }
  const isText = /json|text|x-www-form-urlencoded|xml/.test(headers['content-type'] ?? 'text/plain');
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: req.headers.cookie ? req.headers.cookie.split(/;\s*/) : undefined,
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: `local-${now}-${Math.random().toString(36).slice(2)}`,
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: body.length ? (isText ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** Like the runtime's: the remaining time counts down from the function's timeout (30 s here). */
function lambdaContext(name: string, timeoutMs = 30_000): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: `local-${randomUUID()}`,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
}

function writeResult(res: ServerResponse, result: APIGatewayProxyResultV2) {
  if (typeof result === 'string') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(result);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined);
}

function serveStatic(root: string, path: string, res: ServerResponse, headers: Record<string, string> = {}) {
  const safe = normalize(path).replace(/^(\.\.[/\\])+/, '');
  let file = join(root, safe);
  if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory())
    file = join(root, 'index.html');
  if (!existsSync(file)) {
    res
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { code: 'not_found', message: 'PWA not built' } }));
    return;
  }
  const ext = extname(file);
  res.writeHead(200, {
    ...headers,
    'content-type': MIME[ext] ?? 'application/octet-stream',
    // The service worker and the shell must never be served stale; hashed assets can be cached.
    'cache-control': file.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  createReadStream(file).pipe(res);
}

/**
 * The local stand-in for API Gateway + CloudFront: HTTP requests become API Gateway v2 events for the
 * same handler modules the CDK app deploys; other paths are the PWA's static files.
 */
export function startGateway(opts: {
  port: number;
  routes: Route[];
  staticRoot?: string;
  /** The PWA's security headers (CloudFront's response-headers policy on AWS). */
  staticHeaders?: Record<string, string>;
  /** The live channel's function (`$connect`/`$disconnect`/`$default`): WebSockets on `/live` when given. */
  liveSocket?: () => Promise<LiveSocketHandler>;
}): Promise<Server> {
  installLambdaStreamingGlobals();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (live?.manage(req, body, res)) return;
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const method = req.method ?? 'GET';
    const route = opts.routes.find((r) => matches(r, method, path));
    try {
      if (!route) {
        if (opts.staticRoot && (method === 'GET' || method === 'HEAD'))
          return serveStatic(opts.staticRoot, path, res, opts.staticHeaders);
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { code: 'not_found', message: `No route for ${method} ${path}` } }));
        return;
      }
      const event = toApiGatewayEvent(req, body, `${route.method} ${route.path}`);
      if (route.streaming) {
        const streaming = await route.streaming();
        await streaming(event, responseStreamFor(res), lambdaContext(route.path));
        return;
      }
      const handler = await route.handler();
      const result = await handler(event, lambdaContext(route.path));
      writeResult(res, result);
    } catch (e) {
      // A handler that throws is what Lambda reports as a 502 from API Gateway.
      console.error('gateway: handler failed', e);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'bad_gateway', message: 'The function failed' } }));
    }
  });
  const live = opts.liveSocket ? attachLiveSockets(server, opts.liveSocket) : undefined;
  if (live) {
    // Open sockets would hold `server.close()` forever; they end with the gateway, as a deploy's would.
    const close = server.close.bind(server);
    server.close = (cb) => {
      live.close();
      return close(cb);
    };
  }
  return new Promise((resolve) => server.listen(opts.port, '127.0.0.1', () => resolve(server)));
}
