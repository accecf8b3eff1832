import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '../errors';
import type { BoardMember, BoardTask, TaskBoard, TaskList } from '../ports/task-board';
import { type ErrorHints, readCall, type WriteRetryOptions, writeCall } from './provider-calls';
import { capOutput, lazyInput, type Tool, type ToolContext } from './tool';

/**
 * The ClickUp tools (SPEC §3.4): read the team's lists and tasks, and — with approval — create, change or
 * delete a task. Creation records the pending action id on the task, so an interrupted create is found
 * (`findCreated`) rather than repeated.
 */
export interface ClickUpToolDeps {
  board: TaskBoard;
  writeRetry?: WriteRetryOptions;
}

const OUTPUT_MAX = 10_000;
const HINTS: ErrorHints = {
  not_found: 'Use list_lists, get_tasks or search_tasks to find the right id.',
  validation_failed: 'Check the arguments (for a status, use one the list already has, e.g. from get_tasks).',
};

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

const taskOut = (t: BoardTask) => ({
  id: t.id,
  name: t.name,
  status: t.status,
  closed: t.closed,
  ...(t.priority ? { priority: t.priority } : {}),
  ...(t.dueDate ? { dueDate: t.dueDate } : {}),
  ...(t.assignees.length ? { assignees: t.assignees } : {}),
  ...(t.tags.length ? { tags: t.tags } : {}),
  list: t.list.name || t.list.id,
  ...(t.description ? { description: clip(t.description, 400) } : {}),
  url: t.url,
});

const STOP = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'task', 'list', 'todo', 'about']);

/** Crude stems ("inspections"/"inspect", "leasing"/"lease") so a task's words can pick a list. */
function stems(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !STOP.has(w) && !/^\d+$/.test(w))
    .map((w) => w.replace(/(ing|ions?|es|s|e)$/, ''))
    .filter((w) => w.length >= 3);
}

const related = (a: string, b: string) =>
  a === b || (Math.min(a.length, b.length) >= 5 && (a.startsWith(b) || b.startsWith(a)));

/**
 * The default list for a new task: the first list whose name shares a word with the task ("Schedule the
 * inspection at 7 Birch Rd" → Inspections), else the first list. Deterministic, so reconcile finds the
 * same list the run chose.
 */
export function chooseList(lists: TaskList[], taskName: string): TaskList | undefined {
  const words = stems(taskName);
  return lists.find((l) => stems(l.name).some((n) => words.some((w) => related(w, n)))) ?? lists[0];
}

async function listByName(board: TaskBoard, name: string): Promise<TaskList> {
  const lists = await readCall(() => board.listLists(), HINTS);
  const wanted = name.trim().toLowerCase();
  const hit =
    lists.find((l) => l.name.toLowerCase() === wanted) ??
    lists.find((l) => l.name.toLowerCase().includes(wanted));
  if (!hit)
    throw new NotFoundError(
      `No ClickUp list called “${name}”. The lists are: ${lists.map((l) => l.name).join(', ') || '(none)'}.`,
    );
  return hit;
}

/** Writes need the pending action id: it is the idempotency reference and proves the executor ran us. */
function actionRef(ctx: ToolContext, tool: string): string {
  if (!ctx.actionId)
    throw new ForbiddenError(`${tool} runs only as an approved action; propose it for approval instead.`);
  return ctx.actionId;
}

const isoDate = z
  .string()
  .trim()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/,
    'must be YYYY-MM-DD or ISO 8601',
  )
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a real date');
const priority = z.enum(['urgent', 'high', 'normal', 'low']);
const taskId = z.string().trim().min(1).max(100).describe('Task id from get_tasks or search_tasks');

const listListsInput = lazyInput(() => z.object({}));

export const listLists: Tool<typeof listListsInput, ClickUpToolDeps> = {
  name: 'list_lists',
  group: 'clickup',
  kind: 'read',
  description: 'The task lists on the team’s ClickUp board (id, name, space, folder, number of tasks).',
  input: listListsInput,
  async run(deps) {
    const lists = await readCall(() => deps.board.listLists(), HINTS);
    return capOutput({ count: lists.length, lists }, OUTPUT_MAX);
  },
  summarize: () => 'List the ClickUp lists',
};

const getTasksInput = lazyInput(() =>
  z
    .object({
      listId: z.string().trim().min(1).max(100).optional(),
      listName: z.string().trim().min(1).max(200).optional().describe('List name, instead of listId'),
      includeClosed: z.boolean().default(false),
      statuses: z.array(z.string().trim().min(1).max(50)).max(10).optional(),
      limit: z.number().int().min(1).max(100).default(25),
    })
    .refine((v) => v.listId || v.listName, { message: 'give listId or listName', path: ['listId'] }),
);

export const getTasks: Tool<typeof getTasksInput, ClickUpToolDeps> = {
  name: 'get_tasks',
  group: 'clickup',
  kind: 'read',
  description: 'The tasks of one ClickUp list (open ones unless includeClosed), by list id or name.',
  input: getTasksInput,
  async run(deps, input) {
    const listId = input.listId ?? (await listByName(deps.board, input.listName as string)).id;
    const tasks = await readCall(
      () =>
        deps.board.getTasks({
          listId,
          includeClosed: input.includeClosed,
          ...(input.statuses?.length ? { statuses: input.statuses } : {}),
          limit: input.limit,
        }),
      HINTS,
    );
    return capOutput({ count: tasks.length, tasks: tasks.map(taskOut) }, OUTPUT_MAX);
  },
  summarize: (i) => `Read the tasks of ${i.listName ?? i.listId}`,
};

const searchTasksInput = lazyInput(() =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('Words that must all appear in the task name, description or tags'),
    listIds: z.array(z.string().trim().min(1).max(100)).max(20).optional(),
    includeClosed: z.boolean().default(false),
    limit: z.number().int().min(1).max(50).default(20),
  }),
);

export const searchTasks: Tool<typeof searchTasksInput, ClickUpToolDeps> = {
  name: 'search_tasks',
  group: 'clickup',
  kind: 'read',
  description: 'Find ClickUp tasks across the workspace by words in their name, description or tags.',
  input: searchTasksInput,
  async run(deps, input) {
    const tasks = await readCall(
      () =>
        deps.board.searchTasks({
          query: input.query,
          ...(input.listIds?.length ? { listIds: input.listIds } : {}),
          includeClosed: input.includeClosed,
          limit: input.limit,
        }),
      HINTS,
    );
    return capOutput({ count: tasks.length, tasks: tasks.map(taskOut) }, OUTPUT_MAX);
  },
  summarize: (i) => `Search tasks for “${i.query}”`,
};

const createTaskInput = lazyInput(() =>
  z.object({
    name: z.string().trim().min(1).max(300).describe('What needs doing, e.g. "Fix heater at 12 Oak St #2"'),
    listId: z.string().trim().min(1).max(100).optional(),
    listName: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('List to put it in; default: the list whose name matches words in the task, else the first'),
    description: z.string().trim().max(5000).optional(),
    priority: priority.optional(),
    dueDate: isoDate.optional().describe('YYYY-MM-DD (a due day) or an ISO date-time'),
    tags: z.array(z.string().trim().min(1).max(50)).max(10).optional(),
    status: z.string().trim().min(1).max(50).optional(),
    assignee: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("A team member's name or email: the task is assigned to them"),
  }),
);

/**
 * The board member a name or email means: the same email, the same full name, or a first name only one
 * member has (case ignored). Anything else is a 404 naming the members, so the planner can ask.
 */
export async function memberFor(board: TaskBoard, who: string): Promise<BoardMember> {
  const members = board.listMembers ? await readCall(() => board.listMembers!(), HINTS) : [];
  const w = who.trim().toLowerCase();
  const first = members.filter((m) => m.name.toLowerCase().split(/\s+/)[0] === w);
  const hit =
    members.find((m) => m.email?.toLowerCase() === w || m.name.toLowerCase() === w) ??
    (first.length === 1 ? first[0] : undefined);
  if (!hit)
    throw new NotFoundError(
      `No one called “${who}” on the task board. The members are: ${members.map((m) => m.name).join(', ') || '(none)'}.`,
    );
  return hit;
}

/** The list a create goes to, by the rule above; deterministic for the same arguments and lists. */
async function targetList(
  board: TaskBoard,
  i: z.infer<typeof createTaskInput>,
): Promise<TaskList | { id: string }> {
  if (i.listId) return { id: i.listId };
  if (i.listName) return listByName(board, i.listName);
  const list = chooseList(await readCall(() => board.listLists(), HINTS), i.name);
  if (!list) throw new NotFoundError('The ClickUp workspace has no lists to put a task in.');
  return list;
}

export const createTask: Tool<typeof createTaskInput, ClickUpToolDeps> = {
  name: 'create_task',
  group: 'clickup',
  kind: 'write',
  description:
    'Create a ClickUp task. Without listId/listName it goes to the list whose name matches words in the task, else the first list. Needs approval.',
  input: createTaskInput,
  async run(deps, input, ctx) {
    const clientRef = actionRef(ctx, 'create_task');
    const list = await targetList(deps.board, input);
    const assignee = input.assignee ? await memberFor(deps.board, input.assignee) : undefined;
    const t = await writeCall(
      () =>
        deps.board.createTask({
          listId: list.id,
          name: input.name,
          ...(input.description ? { description: input.description } : {}),
          ...(input.priority ? { priority: input.priority } : {}),
          ...(input.dueDate ? { dueDate: input.dueDate } : {}),
          ...(input.tags?.length ? { tags: input.tags } : {}),
          ...(input.status ? { status: input.status } : {}),
          ...(assignee ? { assignees: [assignee.id] } : {}),
          clientRef,
        }),
      HINTS,
      deps.writeRetry,
    );
    return taskOut(t);
  },
  /**
   * Cards #18: the card says which list the task goes to and who it is for before anyone approves, so the
   * list the rule picks and the member's full name are written into the arguments (and bound by the hash).
   */
  async prepare(deps, input) {
    const list = input.listId ? undefined : await targetList(deps.board, input);
    const member = input.assignee ? await memberFor(deps.board, input.assignee) : undefined;
    const listName = list && 'name' in list ? String(list.name) : undefined;
    return {
      ...input,
      ...(listName ? { listName } : {}),
      ...(member ? { assignee: member.name } : {}),
    };
  },
  async reconcile(deps, input, ctx) {
    const clientRef = actionRef(ctx, 'create_task');
    const list = await targetList(deps.board, input);
    const found = await deps.board.findCreated({ listId: list.id, clientRef });
    return found ? { ...taskOut(found), reconciled: true } : undefined;
  },
  summarize: (i) =>
    `Create task “${clip(i.name, 100)}”${i.listName ? ` in ${i.listName}` : i.listId ? ` in list ${i.listId}` : ''}${i.assignee ? ` for ${i.assignee}` : ''}${i.priority ? ` (${i.priority})` : ''}${i.dueDate ? `, due ${i.dueDate}` : ''}`,
};

const updateTaskInput = lazyInput(() =>
  z
    .object({
      id: taskId,
      name: z.string().trim().min(1).max(300).optional(),
      description: z.string().trim().max(5000).optional(),
      status: z
        .string()
        .trim()
        .min(1)
        .max(50)
        .optional()
        .describe('A status the list has, e.g. "in progress", "complete"'),
      priority: priority.nullable().optional().describe('null clears it'),
      dueDate: isoDate.nullable().optional().describe('null clears it'),
    })
    .refine((v) => Object.keys(v).some((k) => k !== 'id'), 'nothing to update: give at least one field'),
);

export const updateTask: Tool<typeof updateTaskInput, ClickUpToolDeps> = {
  name: 'update_task',
  group: 'clickup',
  kind: 'write',
  description: 'Change a ClickUp task: name, description, status, priority or due date. Needs approval.',
  input: updateTaskInput,
  async run(deps, input, ctx) {
    actionRef(ctx, 'update_task');
    const { id, ...patch } = input;
    const t = await writeCall(() => deps.board.updateTask(id, patch), HINTS, deps.writeRetry);
    return taskOut(t);
  },
  // Setting the same fields again leaves the task as approved, so reconciling is re-applying the update.
  async reconcile(deps, input, ctx) {
    actionRef(ctx, 'update_task');
    const { id, ...patch } = input;
    return { ...taskOut(await deps.board.updateTask(id, patch)), reconciled: true };
  },
  summarize: (i) => {
    const { id, ...p } = i;
    const parts = Object.entries(p).map(([k, v]) => `${k} → ${v === null ? 'none' : clip(String(v), 60)}`);
    return `Update task ${id}: ${parts.join(', ')}`;
  },
};

const deleteTaskInput = lazyInput(() => z.object({ id: taskId }));

export const deleteTask: Tool<typeof deleteTaskInput, ClickUpToolDeps> = {
  name: 'delete_task',
  group: 'clickup',
  kind: 'write',
  description:
    'Delete a ClickUp task (prefer update_task with status "complete" for finished work). Needs approval.',
  input: deleteTaskInput,
  async run(deps, input, ctx) {
    actionRef(ctx, 'delete_task');
    await writeCall(() => deps.board.deleteTask(input.id), HINTS, deps.writeRetry);
    return { deleted: input.id };
  },
  // After an interruption the task is either gone (our delete happened) or still there (delete it now).
  async reconcile(deps, input, ctx) {
    actionRef(ctx, 'delete_task');
    try {
      await deps.board.deleteTask(input.id);
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
    }
    return { deleted: input.id, reconciled: true };
  },
  summarize: (i) => `Delete task ${i.id}`,
};

export const clickUpTools = [listLists, getTasks, searchTasks, createTask, updateTask, deleteTask] as const;
