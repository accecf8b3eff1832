import { type Handler, Hono } from 'hono';
import type { AppEnv } from './app';

export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A family of routes whose module (its handlers, zod contracts and use cases) is imported on the first
 * request to any of them, not at cold start (issue 16: building the schemas of every route family was most
 * of the API's init). The routes themselves are registered eagerly by method and path, so the session
 * guard, the 404 for unknown paths and the auth-matrix test see exactly the same app.
 */
export interface LazyRouteGroup {
  name: string;
  /** Every route the module registers, `METHOD /path` as Hono writes it (checked on load and in a test). */
  routes: readonly `${RouteMethod} ${string}`[];
  /** The module's own `register…Routes(app)`, unchanged: it is run against a private app on first use. */
  load: () => Promise<(app: Hono<AppEnv>) => void>;
}

/** Each route's handler from the group's module, keyed `METHOD /path`; refuses a module that disagrees with the list. */
export async function loadRouteGroup(group: LazyRouteGroup): Promise<Map<string, Handler<AppEnv>>> {
  const register = await group.load();
  const scratch = new Hono<AppEnv>();
  register(scratch);
  const handlers = new Map<string, Handler<AppEnv>>();
  for (const r of scratch.routes) {
    const key = `${r.method} ${r.path}`;
    // One handler per route and no middleware: the app's own middleware already ran for the outer route.
    if (r.method === 'ALL' || handlers.has(key))
      throw new Error(`Route group ${group.name}: ${key} is not a single handler`);
    handlers.set(key, r.handler as Handler<AppEnv>);
  }
  const listed = new Set<string>(group.routes);
  const differ = [...handlers.keys()].filter((k) => !listed.has(k));
  const missing = group.routes.filter((k) => !handlers.has(k));
  if (differ.length || missing.length)
    throw new Error(
      `Route group ${group.name} disagrees with its list: not listed ${differ.join(', ') || '—'}; listed but absent ${missing.join(', ') || '—'}`,
    );
  return handlers;
}

/** Registers the group's routes now; their module is imported once, on the first request (a failed import is retried). */
export function registerLazyRoutes(app: Hono<AppEnv>, group: LazyRouteGroup) {
  let loading: Promise<Map<string, Handler<AppEnv>>> | undefined;
  const handlers = () => {
    loading ??= loadRouteGroup(group);
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  for (const key of group.routes) {
    const [method, path] = key.split(' ') as [RouteMethod, string];
    app.on(method, path, async (c, next) => {
      const handler = (await handlers()).get(key);
      if (!handler) throw new Error(`Route group ${group.name}: no handler for ${key}`);
      return handler(c, next);
    });
  }
}
