import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ApiDeps } from '../../shared/src/composition/api';
import type { SessionUser } from '../../shared/src/contracts/api';
import { apiSecurityHeaders } from '../../shared/src/domain/security-headers';
import { describeZodIssues, isAppError } from '../../shared/src/errors';
import { sessionGuard, sessionGuardWith } from './session-guard';

/** Large enough for any card edit the schemas allow (an email body is at most 20,000 characters). */
export const API_MAX_BODY_BYTES = 512 * 1024;

/** `user` is set by the session guard on every route that is not public. */
export type AppEnv = { Variables: { core: ApiDeps; user?: SessionUser } };

/**
 * The API's Hono app around a set of routes: deps, CORS refusal and security headers, the body limit, the
 * session guard, the 404 and the error mapping — the same for the whole API (./app.ts) and for the streaming
 * function's chat-only app (./chat-app.ts). Errors are mapped here, once: typed errors keep their status and
 * code, anything unexpected is a logged 500 without internals.
 */
export function createAppShell(
  getDeps: () => Promise<ApiDeps>,
  registerRoutes: (app: Hono<AppEnv>) => void,
  publicRoutes?: string[],
) {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const deps = await getDeps();
    c.set('core', deps);
    try {
      await next();
    } finally {
      // Decisions made here (cards approved, denied, executed) are counted in this process: EMF is written
      // once per request. A streamed chat's later counts go out with the container's next request.
      deps.metrics.flush();
    }
  });

  // Security headers on every answer, and CORS same-origin only: no Access-Control-Allow-Origin is ever
  // sent, and a cross-origin preflight is refused, so a page on another origin cannot call the API with a
  // session (Authorization makes every such call preflighted). The PWA is served from the API's origin.
  app.use('*', async (c, next) => {
    if (
      c.req.method === 'OPTIONS' &&
      c.req.header('origin') &&
      c.req.header('access-control-request-method')
    ) {
      const own = new URL(c.get('core').config.PUBLIC_BASE_URL).origin;
      if (c.req.header('origin') !== own)
        return c.json(
          { error: { code: 'cors_refused', message: 'Cross-origin requests are not allowed.' } },
          403,
        );
    }
    await next();
    const onAws = c.get('core')?.config.STAGE === 'aws';
    for (const [k, v] of Object.entries(apiSecurityHeaders({ onAws }))) c.header(k, v);
  });

  app.get('/health', (c) => c.json({ ok: true, service: 'switchboard', time: new Date().toISOString() }));

  // Past this size a body is refused before it is read (413); below it, each route's schema bounds every
  // field with a 400 naming it (an email body over its limit), so nothing oversized reaches DynamoDB.
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: API_MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          {
            error: {
              code: 'payload_too_large',
              message: `The request body is over ${API_MAX_BODY_BYTES / 1024} KiB; send less.`,
            },
          },
          413,
        ),
    }),
  );
  app.use('/api/*', publicRoutes ? sessionGuardWith(publicRoutes) : sessionGuard);
  registerRoutes(app);

  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `No route for ${c.req.method} ${c.req.path}` } }, 404),
  );

  app.onError((err, c) => {
    if (isAppError(err)) {
      return c.json(
        { error: { code: err.code, message: err.message, details: err.details } },
        err.status as 400,
      );
    }
    if (err instanceof HTTPException) {
      return c.json({ error: { code: 'http_error', message: err.message } }, err.status);
    }
    if (
      err &&
      typeof err === 'object' &&
      'issues' in err &&
      Array.isArray((err as { issues: unknown }).issues)
    ) {
      const issues = (err as { issues: { path: PropertyKey[]; message: string }[] }).issues;
      return c.json({ error: { code: 'validation_failed', message: describeZodIssues(issues) } }, 400);
    }
    c.get('core')?.log.error('api.unhandled', { error: String(err), path: c.req.path });
    return c.json(
      { error: { code: 'internal', message: 'Something went wrong on our side; it has been logged.' } },
      500,
    );
  });

  return app;
}
