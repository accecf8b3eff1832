import { Hono } from 'hono';
import { describe, expect, test } from 'vitest';
import type { AppEnv } from '../../functions/api/app';
import { type LazyRouteGroup, loadRouteGroup, registerLazyRoutes } from '../../functions/api/lazy-routes';
import { LAZY_ROUTE_GROUPS } from '../../functions/api/routes';

/**
 * Lazily loaded route families (issue 16): each list names exactly the routes its module registers, so the
 * app registered at cold start (and the session guard and auth matrix that read it) is the same app.
 */
describe('lazy route groups', () => {
  test.each(LAZY_ROUTE_GROUPS.map((g) => [g.name, g] as const))(
    '%s: its list and its module agree',
    async (_name, group) => {
      const handlers = await loadRouteGroup(group);
      expect([...handlers.keys()].sort()).toEqual([...group.routes].sort());
    },
  );

  test('no route is in two groups', () => {
    const all = LAZY_ROUTE_GROUPS.flatMap((g) => g.routes);
    expect(new Set(all).size).toBe(all.length);
  });

  const group = (routes: LazyRouteGroup['routes'], loads: { n: number }): LazyRouteGroup => ({
    name: 'demo',
    routes,
    load: async () => {
      loads.n++;
      return (app) => {
        app.get('/demo/:id', (c) => c.json({ id: c.req.param('id'), user: c.get('user')?.email }));
        app.post('/demo', (c) => c.json({ made: true }, 201));
      };
    },
  });

  test('the module loads on the first request, once, and its handlers see the outer context and params', async () => {
    const loads = { n: 0 };
    const app = new Hono<AppEnv>();
    app.use('*', async (c, next) => {
      c.set('user', { id: 'u1', email: 'sam@oak.example', isAdmin: false });
      await next();
    });
    registerLazyRoutes(app, group(['GET /demo/:id', 'POST /demo'], loads));
    expect(loads.n).toBe(0);
    const [a, b] = await Promise.all([app.request('/demo/42'), app.request('/demo', { method: 'POST' })]);
    expect(await a.json()).toEqual({ id: '42', user: 'sam@oak.example' });
    expect(b.status).toBe(201);
    await app.request('/demo/7');
    expect(loads.n).toBe(1);
  });

  test('a module that registers a route its list lacks is refused with both named', async () => {
    await expect(loadRouteGroup(group(['GET /demo/:id'], { n: 0 }))).rejects.toThrow(
      /not listed POST \/demo; listed but absent —/,
    );
  });
});
