import { DateTime } from 'luxon';
import pRetry from 'p-retry';
import { z } from 'zod';
import {
  type AppError,
  describeZodIssues,
  ForbiddenError,
  NotFoundError,
  UpstreamError,
  ValidationError,
} from '../errors';
import type {
  BoardMember,
  BoardTask,
  NewTask,
  TaskBoard,
  TaskList,
  TaskPatch,
  TaskPriority,
} from '../ports/task-board';

/**
 * ClickUp REST API v2 over fetch (ClickUp publishes no official Node SDK). Personal tokens go in the
 * `Authorization` header as-is. Every response body is validated with zod; failures become our typed
 * errors. Reads back off on 429 (honouring X-RateLimit-Reset, capped) and on 5xx, a bounded number of
 * times; writes are never retried here, because a POST that timed out may have created the task — the
 * tool's reconcile step (`findCreated`) decides instead.
 */
export interface ClickUpOptions {
  /** `CLICKUP_API_BASE`, e.g. https://api.clickup.com/api/v2. */
  baseUrl: string;
  /** `CLICKUP_API_TOKEN`. */
  token: string;
  /** `CLICKUP_TEAM_ID` (ClickUp calls a workspace a team in v2). */
  teamId: string;
  timeoutMs?: number;
  retry?: { retries?: number; minDelayMs?: number; maxDelayMs?: number };
  /** Most pages (100 tasks each) a list or search reads. */
  maxPages?: number;
  /** The team's IANA time zone: a due *day* is placed in it (default UTC). */
  timezone?: string;
}

const PRIORITY_NUMBER: Record<TaskPriority, number> = { urgent: 1, high: 2, normal: 3, low: 4 };
const PRIORITY_NAME: Record<string, TaskPriority> = {
  urgent: 'urgent',
  high: 'high',
  normal: 'normal',
  low: 'low',
};

const listSchema = z.object({
  id: z.string(),
  name: z.string(),
  task_count: z.union([z.number(), z.string()]).nullish(),
  folder: z.object({ name: z.string().optional(), hidden: z.boolean().optional() }).nullish(),
});
const spacesSchema = z.object({ spaces: z.array(z.object({ id: z.string(), name: z.string() })) });
const foldersSchema = z.object({
  folders: z.array(z.object({ id: z.string(), name: z.string(), lists: z.array(listSchema).optional() })),
});
const listsSchema = z.object({ lists: z.array(listSchema) });
/** GET /team ("Get Authorized Workspaces"): each workspace with its members' users. */
const teamsSchema = z.object({
  teams: z.array(
    z.object({
      id: z.coerce.string(),
      members: z
        .array(
          z.object({
            user: z.object({
              id: z.coerce.string(),
              username: z.string().nullish(),
              email: z.string().nullish(),
            }),
          }),
        )
        .default([]),
    }),
  ),
});

const taskSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  text_content: z.string().nullish(),
  status: z.object({ status: z.string(), type: z.string().optional() }),
  priority: z.object({ priority: z.string().nullish() }).nullish(),
  due_date: z.string().nullish(),
  assignees: z.array(z.object({ username: z.string().nullish(), email: z.string().nullish() })).default([]),
  tags: z.array(z.object({ name: z.string() })).default([]),
  list: z.object({ id: z.string(), name: z.string().optional() }),
  url: z.string(),
});
const tasksPageSchema = z.object({ tasks: z.array(taskSchema), last_page: z.boolean().optional() });

type ClickUpTask = z.infer<typeof taskSchema>;

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');
const newTaskSchema = z.object({
  listId: z.string().min(1),
  name: z.string().trim().min(1).max(500),
  description: z.string().max(20_000).optional(),
  status: z.string().min(1).optional(),
  priority: z.enum(['urgent', 'high', 'normal', 'low']).optional(),
  dueDate: isoDate.optional(),
  tags: z.array(z.string().min(1)).max(20).optional(),
  assignees: z.array(z.string().regex(/^\d+$/, 'a ClickUp user id')).max(10).optional(),
  clientRef: z.string().min(1).max(200).optional(),
});
const patchSchema = z
  .object({
    name: z.string().trim().min(1).max(500).optional(),
    description: z.string().max(20_000).optional(),
    status: z.string().min(1).optional(),
    priority: z.enum(['urgent', 'high', 'normal', 'low']).nullable().optional(),
    dueDate: isoDate.nullable().optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'nothing to update');

/** The footer that records our idempotency reference on a task we create. */
export const refFooter = (clientRef: string) => `Switchboard ref: ${clientRef}`;

function toTask(t: ClickUpTask): BoardTask {
  const p = t.priority?.priority ?? undefined;
  const description = (t.description ?? t.text_content ?? '').trim();
  return {
    id: t.id,
    name: t.name,
    ...(description ? { description } : {}),
    status: t.status.status,
    closed: t.status.type === 'closed' || t.status.type === 'done',
    ...(p && PRIORITY_NAME[p] ? { priority: PRIORITY_NAME[p] } : {}),
    ...(t.due_date ? { dueDate: new Date(Number(t.due_date)).toISOString() } : {}),
    assignees: t.assignees.map((a) => a.username ?? a.email ?? '').filter(Boolean),
    tags: t.tags.map((g) => g.name),
    list: { id: t.list.id, name: t.list.name ?? '' },
    url: t.url,
  };
}

/**
 * A date without a time is a due *day*: ClickUp stores it with `due_date_time: false` at 4 am in the local
 * time zone of whoever set it (developer.clickup.com/docs/general-time), so we send 04:00 on that day in the
 * team's zone. UTC midnight — what `Date.parse('2026-03-08')` gives — is the evening before in the Americas.
 */
export function dueFields(iso: string, timezone = 'UTC') {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return { due_date: Date.parse(iso), due_date_time: true };
  const day = DateTime.fromISO(iso, { zone: timezone }).set({
    hour: 4,
    minute: 0,
    second: 0,
    millisecond: 0,
  });
  if (!day.isValid) throw new ValidationError(`dueDate: ${iso} is not a day in ${timezone}`);
  return { due_date: day.toMillis(), due_date_time: false };
}

function invalid(issues: z.core.$ZodIssue[]): ValidationError {
  return new ValidationError(describeZodIssues(issues));
}

export function createClickUpTaskBoard(opts: ClickUpOptions): TaskBoard {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retries = opts.retry?.retries ?? 3;
  const minDelay = opts.retry?.minDelayMs ?? 500;
  const maxDelay = opts.retry?.maxDelayMs ?? 5_000;
  const maxPages = opts.maxPages ?? 5;

  type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;

  const failure = async (res: Response, what: string): Promise<AppError> => {
    const text = await res.text().catch(() => '');
    let message = text.slice(0, 200);
    try {
      const parsed = JSON.parse(text) as { err?: string; ECODE?: string };
      if (parsed.err) message = `${parsed.err}${parsed.ECODE ? ` (${parsed.ECODE})` : ''}`;
    } catch {
      // Not every ClickUp error is JSON (some 404s are HTML); the raw text is the message then.
    }
    switch (res.status) {
      case 400:
        return new ValidationError(`ClickUp rejected the ${what}: ${message}`);
      case 401:
        return new UpstreamError(`ClickUp refused our token for the ${what}: ${message}`, {
          code: 'upstream_auth_failed',
          retryable: false,
        });
      case 403:
        return new ForbiddenError(`ClickUp does not allow this ${what}: ${message}`);
      case 404:
        return new NotFoundError(`ClickUp ${what} not found`);
      case 429: {
        const err = new UpstreamError(`ClickUp rate limit on the ${what}`, {
          code: 'rate_limited',
          retryable: true,
        });
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        return Object.assign(err, {
          resetAt: Number.isFinite(reset) && reset > 0 ? reset * 1000 : undefined,
        });
      }
      default:
        return new UpstreamError(`ClickUp ${what} failed (${res.status}): ${message}`, {
          retryable: res.status >= 500,
        });
    }
  };

  const once = async (
    method: string,
    path: string,
    what: string,
    query?: Query,
    body?: unknown,
  ): Promise<unknown> => {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      // ClickUp's array filters are `statuses[]=a&statuses[]=b`.
      if (Array.isArray(v)) for (const x of v) url.searchParams.append(`${k}[]`, String(x));
      else url.searchParams.set(k, String(v));
    }
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          Authorization: opts.token,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw new UpstreamError(`ClickUp ${what} unreachable: ${e instanceof Error ? e.message : String(e)}`, {
        code: 'upstream_unreachable',
        cause: e,
      });
    }
    if (!res.ok) throw await failure(res, what);
    if (res.status === 204) return undefined;
    const text = await res.text();
    if (!text) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw new UpstreamError(`ClickUp returned a non-JSON ${what} response`, {
        code: 'upstream_malformed',
        retryable: false,
      });
    }
  };

  const read = <S extends z.ZodType>(
    schema: S,
    path: string,
    what: string,
    query?: Query,
  ): Promise<z.infer<S>> =>
    pRetry(
      async () => {
        const data = await once('GET', path, what, query);
        const parsed = schema.safeParse(data);
        if (!parsed.success) {
          throw new UpstreamError(
            `ClickUp returned an unexpected ${what} response: ${describeZodIssues(parsed.error.issues)}`,
            {
              code: 'upstream_malformed',
              retryable: false,
            },
          );
        }
        return parsed.data as z.infer<S>;
      },
      {
        retries,
        minTimeout: minDelay,
        maxTimeout: maxDelay,
        // 429, 5xx and network failures; never auth, validation, not-found or malformed answers.
        shouldRetry: ({ error }) => error instanceof UpstreamError && error.retryable,
        onFailedAttempt: async ({ error, retriesLeft, retryDelay }) => {
          // Wait until the window resets when ClickUp says when, never longer than maxDelay.
          const resetAt = (error as { resetAt?: number }).resetAt;
          if (!resetAt || retriesLeft === 0) return;
          const extra = Math.min(resetAt - Date.now(), maxDelay) - retryDelay;
          if (extra > 0) await new Promise((r) => setTimeout(r, extra));
        },
      },
    );

  const write = async (method: 'POST' | 'PUT' | 'DELETE', path: string, what: string, body?: unknown) => {
    const data = await once(method, path, what, undefined, body);
    if (method === 'DELETE') return undefined;
    const parsed = taskSchema.safeParse(data);
    if (!parsed.success) {
      throw new UpstreamError(
        `ClickUp returned an unexpected ${what} response: ${describeZodIssues(parsed.error.issues)}`,
        {
          code: 'upstream_malformed',
          retryable: false,
        },
      );
    }
    return toTask(parsed.data);
  };

  const pages = async (
    path: string,
    what: string,
    query: Query,
    limit: number,
    keep: (t: BoardTask) => boolean,
  ) => {
    const out: BoardTask[] = [];
    for (let page = 0; page < maxPages && out.length < limit; page++) {
      const res = await read(tasksPageSchema, path, what, { ...query, page });
      out.push(...res.tasks.map(toTask).filter(keep));
      if (res.last_page !== false || res.tasks.length === 0) break;
    }
    return out.slice(0, limit);
  };

  return {
    async listMembers(): Promise<BoardMember[]> {
      const { teams } = await read(teamsSchema, '/team', 'workspace members', {});
      const team = teams.find((t) => t.id === opts.teamId);
      return (team?.members ?? []).map(({ user }) => ({
        id: user.id,
        name: user.username ?? user.email ?? `user ${user.id}`,
        ...(user.email ? { email: user.email } : {}),
      }));
    },

    async listLists() {
      const { spaces } = await read(
        spacesSchema,
        `/team/${encodeURIComponent(opts.teamId)}/space`,
        'space list',
        {
          archived: false,
        },
      );
      const perSpace = await Promise.all(
        spaces.map(async (space): Promise<TaskList[]> => {
          const [folders, folderless] = await Promise.all([
            read(foldersSchema, `/space/${space.id}/folder`, 'folder list', { archived: false }),
            read(listsSchema, `/space/${space.id}/list`, 'list list', { archived: false }),
          ]);
          const row = (l: z.infer<typeof listSchema>, folder?: string): TaskList => ({
            id: l.id,
            name: l.name,
            space: space.name,
            ...(folder ? { folder } : {}),
            ...(l.task_count !== undefined && l.task_count !== null
              ? { taskCount: Number(l.task_count) }
              : {}),
          });
          return [
            ...folderless.lists.map((l) => row(l)),
            ...folders.folders.flatMap((f) => (f.lists ?? []).map((l) => row(l, f.name))),
          ];
        }),
      );
      return perSpace.flat();
    },

    async getTasks({ listId, includeClosed = false, statuses, limit = 50 }) {
      if (!listId) throw new ValidationError('listId is required');
      return pages(
        `/list/${encodeURIComponent(listId)}/task`,
        'task list',
        { include_closed: includeClosed, ...(statuses?.length ? { statuses } : {}) },
        Math.min(limit, 500),
        () => true,
      );
    },

    async searchTasks({ query, listIds, includeClosed = false, limit = 20 }) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      if (!words.length) throw new ValidationError('A search needs at least one word');
      // API v2 has no text search on tasks: we page through the filtered team tasks and match words
      // against name, description and tags here (bounded by maxPages × 100 tasks).
      const matches = (t: BoardTask) => {
        const hay = `${t.name}\n${t.description ?? ''}\n${t.tags.join(' ')}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      };
      return pages(
        `/team/${encodeURIComponent(opts.teamId)}/task`,
        'task search',
        { include_closed: includeClosed, ...(listIds?.length ? { list_ids: listIds } : {}) },
        Math.min(limit, 100),
        matches,
      );
    },

    async createTask(raw: NewTask) {
      const parsed = newTaskSchema.safeParse(raw);
      if (!parsed.success) throw invalid(parsed.error.issues);
      const t = parsed.data;
      const description = [t.description?.trim(), t.clientRef ? refFooter(t.clientRef) : undefined]
        .filter(Boolean)
        .join('\n\n');
      const created = await write('POST', `/list/${encodeURIComponent(t.listId)}/task`, 'task creation', {
        name: t.name,
        ...(description ? { description } : {}),
        ...(t.status ? { status: t.status } : {}),
        ...(t.priority ? { priority: PRIORITY_NUMBER[t.priority] } : {}),
        ...(t.dueDate ? dueFields(t.dueDate, opts.timezone) : {}),
        ...(t.tags?.length ? { tags: t.tags } : {}),
        // Create Task takes the assignees as an array of integer user ids.
        ...(t.assignees?.length ? { assignees: t.assignees.map(Number) } : {}),
      });
      return created as BoardTask;
    },

    async updateTask(id: string, raw: TaskPatch) {
      if (!id) throw new ValidationError('A task id is required');
      const parsed = patchSchema.safeParse(raw);
      if (!parsed.success) throw invalid(parsed.error.issues);
      const p = parsed.data;
      const body = {
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(p.status !== undefined ? { status: p.status } : {}),
        ...(p.priority !== undefined
          ? { priority: p.priority === null ? null : PRIORITY_NUMBER[p.priority] }
          : {}),
        ...(p.dueDate !== undefined
          ? p.dueDate === null
            ? { due_date: null }
            : dueFields(p.dueDate, opts.timezone)
          : {}),
      };
      return (await write('PUT', `/task/${encodeURIComponent(id)}`, 'task update', body)) as BoardTask;
    },

    async deleteTask(id: string) {
      if (!id) throw new ValidationError('A task id is required');
      await write('DELETE', `/task/${encodeURIComponent(id)}`, 'task deletion');
    },

    async findCreated({ listId, clientRef }) {
      const footer = refFooter(clientRef);
      const found = await pages(
        `/list/${encodeURIComponent(listId)}/task`,
        'task list',
        { include_closed: true, order_by: 'created' },
        1,
        (t) => (t.description ?? '').includes(footer),
      );
      return found[0];
    },
  };
}
