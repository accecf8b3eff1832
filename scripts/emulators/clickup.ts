import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { buildClickUpSeed, type ClickUpSeed, type ClickUpSeedStatus } from './seed/clickup-data';

/**
 * A local ClickUp API v2 (https://developer.clickup.com/reference) for the routes our adapter uses:
 * teams, spaces, folders, lists, tasks of a list, filtered team tasks, and task create/update/delete.
 * Auth is the personal-token scheme (`Authorization: <token>`; `Bearer <token>` is accepted as for OAuth
 * tokens). Errors use ClickUp's `{ err, ECODE }` body. Responses carry the documented X-RateLimit-*
 * headers. Not confirmed against the live API, so treat as approximations: the exact ECODE values for
 * a bad token, a missing item and an unknown status, and whether DELETE answers 204 or 200 `{}` (we send 204).
 */
export interface ClickUpEmulatorOptions {
  port?: number;
  token: string;
  seed?: ClickUpSeed | false;
  /** Delay before every answer (benchmarks: a leaf answered by a slow vendor); 0 by default. */
  latencyMs?: number;
}

interface StoredTask {
  id: string;
  listId: string;
  name: string;
  description: string;
  status: string;
  priority: number | null;
  dueDate: number | null;
  dueDateTime: boolean;
  assignees: number[];
  tags: string[];
  created: number;
  updated: number;
  closed: number | null;
  archived: boolean;
  creator: number;
}

interface Override {
  prefix: string;
  status: number;
  body?: string;
  headers?: Record<string, string>;
  remaining: number;
}

export interface ClickUpEmulatorState {
  failNext(
    pathPrefix: string,
    status: number,
    opts?: { times?: number; headers?: Record<string, string> },
  ): void;
  respondNext(
    pathPrefix: string,
    res: { status: number; body: string; headers?: Record<string, string>; times?: number },
  ): void;
  clearFailures(): void;
  task(id: string): StoredTask | undefined;
  tasks(listId?: string): StoredTask[];
  readonly requests: { method: string; path: string; status: number }[];
}

export interface ClickUpEmulator {
  /** Origin, e.g. http://127.0.0.1:1234. */
  url: string;
  /** `CLICKUP_API_BASE` for this emulator (origin + /api/v2). */
  apiBase: string;
  teamId: string;
  /** The configuration (config.ts names) that points the production adapter at this emulator. */
  env: { CLICKUP_API_BASE: string; CLICKUP_API_TOKEN: string; CLICKUP_TEAM_ID: string };
  state: ClickUpEmulatorState;
  stop(): Promise<void>;
}

const PRIORITIES: Record<number, { priority: string; color: string }> = {
  1: { priority: 'urgent', color: '#f50000' },
  2: { priority: 'high', color: '#ffcc00' },
  3: { priority: 'normal', color: '#6fddff' },
  4: { priority: 'low', color: '#d8d8d8' },
};

class ClickUpApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly ecode: string,
  ) {
    super(message);
  }
}

const PAGE_SIZE = 100;

export async function startClickUpEmulator(opts: ClickUpEmulatorOptions): Promise<ClickUpEmulator> {
  const seed = opts.seed === false ? undefined : (opts.seed ?? buildClickUpSeed());
  const teamId = seed?.team.id ?? '9011000001';
  const team = seed?.team ?? { id: teamId, name: 'Workspace' };
  const members = seed?.members ?? [];
  const spaces = seed?.spaces ?? [];
  const folders = seed?.folders ?? [];
  const lists = seed?.lists ?? [];
  const tasks = new Map<string, StoredTask>();
  const overrides: Override[] = [];
  const requests: { method: string; path: string; status: number }[] = [];
  const now = seed?.now ?? Date.now();
  const day = 86_400_000;
  for (const t of seed?.tasks ?? []) {
    const space = spaces.find((s) => s.id === lists.find((l) => l.id === t.listId)?.spaceId);
    const closed = space?.statuses.find((s) => s.status === t.status)?.type === 'closed';
    tasks.set(t.id, {
      id: t.id,
      listId: t.listId,
      name: t.name,
      description: t.description ?? '',
      status: t.status,
      priority: t.priority ?? null,
      dueDate: t.dueInDays === undefined ? null : now + t.dueInDays * day,
      dueDateTime: false,
      assignees: t.assignees ?? [],
      tags: t.tags ?? [],
      created: now - t.createdDaysAgo * day,
      updated: now - t.createdDaysAgo * day,
      closed: closed ? now - day : null,
      archived: false,
      creator: members[0]?.id ?? 1,
    });
  }

  const listOf = (id: string) => {
    const l = lists.find((x) => x.id === id);
    if (!l) throw new ClickUpApiError(404, 'List not found', 'ITEM_013');
    return l;
  };
  const spaceOfList = (listId: string) => spaces.find((s) => s.id === listOf(listId).spaceId);
  const statusOf = (t: StoredTask): ClickUpSeedStatus & { orderindex: number } => {
    const statuses = spaceOfList(t.listId)?.statuses ?? [];
    const i = statuses.findIndex((s) => s.status === t.status);
    const s = statuses[i] ?? { status: t.status, type: 'open' as const, color: '#d3d3d3' };
    return { ...s, orderindex: Math.max(0, i) };
  };
  const isClosed = (t: StoredTask) => statusOf(t).type === 'closed';
  const user = (id: number) => {
    const m = members.find((x) => x.id === id);
    const username = m?.username ?? `user ${id}`;
    return {
      id,
      username,
      color: '#7b68ee',
      initials: username
        .split(' ')
        .map((w) => w[0])
        .join(''),
      email: m?.email ?? '',
      profilePicture: null,
    };
  };

  const renderList = (l: (typeof lists)[number]) => {
    const folder = folders.find((f) => f.id === l.folderId);
    const space = spaces.find((s) => s.id === l.spaceId);
    return {
      id: l.id,
      name: l.name,
      orderindex: lists.indexOf(l),
      content: '',
      status: null,
      priority: null,
      assignee: null,
      task_count: [...tasks.values()].filter((t) => t.listId === l.id && !t.archived).length,
      due_date: null,
      start_date: null,
      // ClickUp reports folderless lists inside a hidden folder.
      folder: folder
        ? { id: folder.id, name: folder.name, hidden: false, access: true }
        : { id: `${l.spaceId}0`, name: 'hidden', hidden: true, access: true },
      space: { id: l.spaceId, name: space?.name ?? '', access: true },
      archived: false,
      override_statuses: false,
      permission_level: 'create',
    };
  };

  const renderTask = (t: StoredTask) => {
    const l = listOf(t.listId);
    const folder = folders.find((f) => f.id === l.folderId);
    const status = statusOf(t);
    const folderRef = folder
      ? { id: folder.id, name: folder.name, hidden: false, access: true }
      : { id: `${l.spaceId}0`, name: 'hidden', hidden: true, access: true };
    return {
      id: t.id,
      custom_id: null,
      name: t.name,
      text_content: t.description,
      description: t.description,
      status: {
        status: status.status,
        color: status.color,
        orderindex: status.orderindex,
        type: status.type,
      },
      orderindex: `${[...tasks.keys()].indexOf(t.id) + 1}.00000000000000000000000000000000`,
      date_created: String(t.created),
      date_updated: String(t.updated),
      date_closed: t.closed === null ? null : String(t.closed),
      date_done: t.closed === null ? null : String(t.closed),
      archived: t.archived,
      creator: user(t.creator),
      assignees: t.assignees.map(user),
      watchers: [],
      checklists: [],
      tags: t.tags.map((name) => ({ name, tag_fg: '#ffffff', tag_bg: '#7b68ee', creator: t.creator })),
      parent: null,
      priority:
        t.priority === null
          ? null
          : {
              id: String(t.priority),
              priority: PRIORITIES[t.priority]?.priority,
              color: PRIORITIES[t.priority]?.color,
              orderindex: String(t.priority),
            },
      due_date: t.dueDate === null ? null : String(t.dueDate),
      start_date: null,
      points: null,
      time_estimate: null,
      custom_fields: [],
      dependencies: [],
      linked_tasks: [],
      team_id: teamId,
      url: `https://app.clickup.com/t/${t.id}`,
      permission_level: 'create',
      list: { id: l.id, name: l.name, access: true },
      project: folderRef,
      folder: folderRef,
      space: { id: l.spaceId },
    };
  };

  const app = new Hono();

  app.onError((err, c) => {
    if (err instanceof ClickUpApiError)
      return c.json({ err: err.message, ECODE: err.ecode }, err.status as 400);
    return c.json({ err: String(err), ECODE: 'SHARD_001' }, 500);
  });
  app.notFound((c) => c.text('Cannot find route', 404));
  if (opts.latencyMs) {
    const ms = opts.latencyMs;
    app.use('*', async (_c, next) => {
      await new Promise((r) => setTimeout(r, ms));
      await next();
    });
  }

  let windowStart = Date.now();
  let used = 0;
  const rateHeaders = (remaining?: number) => {
    if (Date.now() - windowStart > 60_000) {
      windowStart = Date.now();
      used = 0;
    }
    return {
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': String(remaining ?? Math.max(0, 100 - used)),
      'X-RateLimit-Reset': String(Math.ceil((windowStart + 60_000) / 1000)),
    };
  };

  app.use('*', async (c, next) => {
    const path = c.req.path;
    const target = path + new URL(c.req.url).search;
    const o = overrides.find((x) => target.startsWith(x.prefix));
    if (o) {
      o.remaining -= 1;
      if (o.remaining <= 0) overrides.splice(overrides.indexOf(o), 1);
      requests.push({ method: c.req.method, path, status: o.status });
      const limited = o.status === 429;
      const headers = {
        'content-type': 'application/json',
        ...rateHeaders(limited ? 0 : undefined),
        ...(limited ? { 'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 1) } : {}),
        ...o.headers,
      };
      const body =
        o.body ??
        JSON.stringify(
          limited
            ? { err: 'Rate limit reached', ECODE: 'APP_002' }
            : { err: `Injected ${o.status}`, ECODE: 'TEST_001' },
        );
      return new Response(body, { status: o.status, headers });
    }
    const auth = c.req.header('authorization') ?? '';
    const presented = auth.replace(/^Bearer\s+/i, '');
    if (!auth) {
      requests.push({ method: c.req.method, path, status: 401 });
      return c.json({ err: 'Authorization header required', ECODE: 'OAUTH_017' }, 401);
    }
    if (presented !== opts.token) {
      requests.push({ method: c.req.method, path, status: 401 });
      return c.json({ err: 'Oauth token not found', ECODE: 'OAUTH_019' }, 401);
    }
    used += 1;
    await next();
    for (const [k, v] of Object.entries(rateHeaders())) c.res.headers.set(k, v);
    requests.push({ method: c.req.method, path, status: c.res.status });
  });

  const teamOnly = (c: Context) => {
    if (c.req.param('teamId') !== teamId) throw new ClickUpApiError(401, 'Team not authorized', 'OAUTH_027');
  };
  const bool = (v: string | undefined) => v === 'true';
  const arrayParam = (c: Context, name: string) => [
    ...(c.req.queries(`${name}[]`) ?? []),
    ...(c.req.queries(name) ?? []),
  ];
  const body = async (c: Context): Promise<Record<string, unknown>> => {
    try {
      const b = await c.req.json();
      if (!b || typeof b !== 'object' || Array.isArray(b)) throw new Error('not an object');
      return b as Record<string, unknown>;
    } catch {
      throw new ClickUpApiError(400, 'Invalid JSON body', 'INPUT_001');
    }
  };

  /** Filters shared by Get Tasks and Get Filtered Team Tasks. */
  const filterTasks = (c: Context, base: StoredTask[]) => {
    const statuses = arrayParam(c, 'statuses').map((s) => s.toLowerCase());
    const assignees = arrayParam(c, 'assignees').map(Number);
    const tags = arrayParam(c, 'tags');
    const includeClosed = bool(c.req.query('include_closed'));
    const archived = bool(c.req.query('archived'));
    const num = (n: string) => (c.req.query(n) === undefined ? undefined : Number(c.req.query(n)));
    const [dueGt, dueLt, createdGt, createdLt] = [
      'due_date_gt',
      'due_date_lt',
      'date_created_gt',
      'date_created_lt',
    ].map(num);
    const orderBy = c.req.query('order_by') ?? 'created';
    const key = (t: StoredTask) =>
      orderBy === 'updated'
        ? t.updated
        : orderBy === 'due_date'
          ? (t.dueDate ?? Number.MAX_SAFE_INTEGER)
          : t.created;
    const filtered = base
      .filter((t) => t.archived === archived)
      .filter((t) => (statuses.length ? statuses.includes(t.status) : includeClosed || !isClosed(t)))
      .filter((t) => !assignees.length || t.assignees.some((a) => assignees.includes(a)))
      .filter((t) => !tags.length || t.tags.some((g) => tags.includes(g)))
      .filter((t) => dueGt === undefined || (t.dueDate !== null && t.dueDate > dueGt))
      .filter((t) => dueLt === undefined || (t.dueDate !== null && t.dueDate < dueLt))
      .filter((t) => createdGt === undefined || t.created > createdGt)
      .filter((t) => createdLt === undefined || t.created < createdLt)
      .sort((a, b) => key(b) - key(a));
    if (bool(c.req.query('reverse'))) filtered.reverse();
    const page = Number(c.req.query('page') ?? '0') || 0;
    const slice = filtered.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    return { tasks: slice.map(renderTask), last_page: (page + 1) * PAGE_SIZE >= filtered.length };
  };

  const v2 = new Hono();

  v2.get('/team', (c) =>
    c.json({
      teams: [
        {
          id: team.id,
          name: team.name,
          color: '#7b68ee',
          avatar: null,
          members: members.map((m) => ({ user: user(m.id) })),
        },
      ],
    }),
  );

  v2.get('/team/:teamId/space', (c) => {
    teamOnly(c);
    return c.json({
      spaces: spaces.map((s) => ({
        id: s.id,
        name: s.name,
        private: false,
        statuses: s.statuses.map((st, i) => ({
          status: st.status,
          type: st.type,
          orderindex: i,
          color: st.color,
        })),
        multiple_assignees: true,
        archived: false,
      })),
    });
  });

  const spaceOr404 = (id: string) => {
    const s = spaces.find((x) => x.id === id);
    if (!s) throw new ClickUpApiError(404, 'Space not found', 'ITEM_015');
    return s;
  };

  v2.get('/space/:spaceId/folder', (c) => {
    const s = spaceOr404(c.req.param('spaceId'));
    return c.json({
      folders: folders
        .filter((f) => f.spaceId === s.id)
        .map((f, i) => ({
          id: f.id,
          name: f.name,
          orderindex: i,
          override_statuses: false,
          hidden: false,
          space: { id: s.id, name: s.name },
          task_count: String([...tasks.values()].filter((t) => listOf(t.listId).folderId === f.id).length),
          archived: false,
          statuses: [],
          lists: lists.filter((l) => l.folderId === f.id).map(renderList),
          permission_level: 'create',
        })),
    });
  });

  v2.get('/space/:spaceId/list', (c) => {
    const s = spaceOr404(c.req.param('spaceId'));
    return c.json({ lists: lists.filter((l) => l.spaceId === s.id && !l.folderId).map(renderList) });
  });

  v2.get('/folder/:folderId/list', (c) => {
    const f = folders.find((x) => x.id === c.req.param('folderId'));
    if (!f) throw new ClickUpApiError(404, 'Folder not found', 'ITEM_014');
    return c.json({ lists: lists.filter((l) => l.folderId === f.id).map(renderList) });
  });

  v2.get('/list/:listId', (c) => c.json(renderList(listOf(c.req.param('listId')))));

  v2.get('/list/:listId/task', (c) => {
    const l = listOf(c.req.param('listId'));
    return c.json(
      filterTasks(
        c,
        [...tasks.values()].filter((t) => t.listId === l.id),
      ),
    );
  });

  v2.get('/team/:teamId/task', (c) => {
    teamOnly(c);
    const listIds = arrayParam(c, 'list_ids');
    const spaceIds = arrayParam(c, 'space_ids');
    const folderIds = arrayParam(c, 'project_ids');
    const base = [...tasks.values()].filter((t) => {
      const l = listOf(t.listId);
      return (
        (!listIds.length || listIds.includes(l.id)) &&
        (!spaceIds.length || spaceIds.includes(l.spaceId)) &&
        (!folderIds.length || (l.folderId !== undefined && folderIds.includes(l.folderId)))
      );
    });
    return c.json(filterTasks(c, base));
  });

  const taskOr404 = (id: string) => {
    const t = tasks.get(id);
    if (!t) throw new ClickUpApiError(404, 'Task not found, deleted', 'ITEM_013');
    return t;
  };

  v2.get('/task/:taskId', (c) => c.json(renderTask(taskOr404(c.req.param('taskId')))));

  /** Applies the writable fields shared by create and update, validating them like ClickUp does. */
  const applyFields = (t: StoredTask, b: Record<string, unknown>) => {
    if ('name' in b) {
      if (typeof b.name !== 'string' || !b.name.trim())
        throw new ClickUpApiError(400, 'Task name invalid', 'INPUT_005');
      t.name = b.name;
    }
    if ('description' in b) t.description = typeof b.description === 'string' ? b.description : '';
    if ('markdown_description' in b && typeof b.markdown_description === 'string')
      t.description = b.markdown_description;
    if ('status' in b) {
      const statuses = spaceOfList(t.listId)?.statuses ?? [];
      const wanted = String(b.status).toLowerCase();
      const s = statuses.find((x) => x.status === wanted);
      if (!s) throw new ClickUpApiError(400, 'Status does not exist', 'ITEM_114');
      t.status = s.status;
      t.closed = s.type === 'closed' ? Date.now() : null;
    }
    if ('priority' in b) {
      if (b.priority !== null && ![1, 2, 3, 4].includes(Number(b.priority))) {
        throw new ClickUpApiError(400, 'Priority invalid', 'INPUT_008');
      }
      t.priority = b.priority === null ? null : Number(b.priority);
    }
    if ('due_date' in b) {
      if (b.due_date !== null && !Number.isFinite(Number(b.due_date)))
        throw new ClickUpApiError(400, 'Due date invalid', 'INPUT_009');
      t.dueDate = b.due_date === null ? null : Number(b.due_date);
    }
    if ('due_date_time' in b) t.dueDateTime = b.due_date_time === true;
    if (Array.isArray(b.tags)) t.tags = b.tags.map(String);
    if (Array.isArray(b.assignees)) t.assignees = b.assignees.map(Number);
    if (b.assignees && typeof b.assignees === 'object' && !Array.isArray(b.assignees)) {
      const a = b.assignees as { add?: unknown[]; rem?: unknown[] };
      const rem = (a.rem ?? []).map(Number);
      t.assignees = [...t.assignees.filter((x) => !rem.includes(x)), ...(a.add ?? []).map(Number)];
    }
    if ('archived' in b) t.archived = b.archived === true;
  };

  v2.post('/list/:listId/task', async (c) => {
    const l = listOf(c.req.param('listId'));
    const b = await body(c);
    if (typeof b.name !== 'string' || !b.name.trim())
      throw new ClickUpApiError(400, 'Task name invalid', 'INPUT_005');
    const statuses = spaces.find((s) => s.id === l.spaceId)?.statuses ?? [];
    const t: StoredTask = {
      id: `86b${randomBytes(3).toString('hex')}`,
      listId: l.id,
      name: b.name,
      description: '',
      status: statuses[0]?.status ?? 'to do',
      priority: null,
      dueDate: null,
      dueDateTime: false,
      assignees: [],
      tags: [],
      created: Date.now(),
      updated: Date.now(),
      closed: null,
      archived: false,
      creator: members[0]?.id ?? 1,
    };
    applyFields(t, b);
    tasks.set(t.id, t);
    return c.json(renderTask(t));
  });

  v2.put('/task/:taskId', async (c) => {
    const t = taskOr404(c.req.param('taskId'));
    const b = await body(c);
    const draft = { ...t, assignees: [...t.assignees], tags: [...t.tags] };
    applyFields(draft, b);
    draft.updated = Date.now();
    tasks.set(t.id, draft);
    return c.json(renderTask(draft));
  });

  v2.delete('/task/:taskId', (c) => {
    const t = taskOr404(c.req.param('taskId'));
    tasks.delete(t.id);
    return c.body(null, 204);
  });

  app.route('/api/v2', v2);

  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const state: ClickUpEmulatorState = {
    failNext(prefix, status, o = {}) {
      overrides.push({ prefix, status, headers: o.headers, remaining: o.times ?? 1 });
    },
    respondNext(prefix, res) {
      overrides.push({
        prefix,
        status: res.status,
        body: res.body,
        headers: res.headers,
        remaining: res.times ?? 1,
      });
    },
    clearFailures() {
      overrides.length = 0;
    },
    task: (id) => tasks.get(id),
    tasks: (listId) => [...tasks.values()].filter((t) => !listId || t.listId === listId),
    requests,
  };

  return {
    url,
    apiBase: `${url}/api/v2`,
    teamId,
    env: { CLICKUP_API_BASE: `${url}/api/v2`, CLICKUP_API_TOKEN: opts.token, CLICKUP_TEAM_ID: teamId },
    state,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
