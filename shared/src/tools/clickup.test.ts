import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickUpEmulator, startClickUpEmulator } from '../../../scripts/emulators/clickup';
import { DEMO_CLICKUP_IDS as IDS } from '../../../scripts/emulators/seed/clickup-data';
import { createClickUpTaskBoard, refFooter } from '../adapters/clickup-http';
import { buildClickUpToolDeps } from '../composition/tool-deps';
import { ForbiddenError, ValidationError } from '../errors';
import type { TaskList } from '../ports/task-board';
import { type ClickUpToolDeps, chooseList, clickUpTools } from './clickup';
import { bindAll, ToolRegistry } from './registry';
import type { ToolContext } from './tool';

const TOKEN = 'pk_tools_token';
let emu: ClickUpEmulator;
let registry: ToolRegistry;
let seq = 0;

const ctx = (over: Partial<ToolContext> = {}): ToolContext => ({
  conversationId: 'conv_cu',
  runId: 'run_cu',
  actionId: `act_cu_${++seq}`,
  now: new Date(),
  timezone: 'America/New_York',
  ...over,
});

function registryFor(deps: ClickUpToolDeps) {
  return new ToolRegistry(bindAll(clickUpTools, deps));
}

async function call(name: string, args: Record<string, unknown>, c: ToolContext = ctx(), r = registry) {
  const v = r.validateArgs(name, args);
  if (!v.ok) throw new ValidationError(v.reason);
  // biome-ignore lint/suspicious/noExplicitAny: tests read tool results field by field
  return r.get(name).run(v.args, c) as Promise<Record<string, any>>;
}

beforeAll(async () => {
  emu = await startClickUpEmulator({ token: TOKEN });
  registry = registryFor({
    board: createClickUpTaskBoard({
      baseUrl: emu.apiBase,
      token: TOKEN,
      teamId: emu.teamId,
      retry: { minDelayMs: 5, maxDelayMs: 20 },
    }),
    writeRetry: { minDelayMs: 5, maxDelayMs: 10 },
  });
});
afterAll(async () => {
  await emu?.stop();
});

describe('chooseList (default list for a new task)', () => {
  const lists: TaskList[] = [
    { id: 'm', name: 'Maintenance', space: 'Ops' },
    { id: 'l', name: 'Leasing', space: 'Ops' },
    { id: 'i', name: 'Inspections', space: 'Ops', folder: 'Properties' },
  ];
  it.each([
    ['Schedule the inspection at 7 Birch Rd', 'i'],
    ['Inspect the smoke detectors', 'i'],
    ['Send lease renewal to David', 'l'],
    ['maintenance: replace the furnace filter', 'm'],
    ['Fix the heater at 12 Oak St', 'm'],
    ['Call Bob', 'm'],
  ])('%s → %s', (name, id) => {
    expect(chooseList(lists, name)?.id).toBe(id);
  });
  it('has nothing to choose from an empty board', () => {
    expect(chooseList([], 'anything')).toBeUndefined();
  });
});

describe('ClickUp read tools', () => {
  it('lists the lists', async () => {
    const r = await call('list_lists', {});
    expect(r.lists.map((l: TaskList) => l.name)).toEqual(['Maintenance', 'Leasing', 'Inspections']);
  });

  it('gets a list’s open tasks by name, normalised', async () => {
    const r = await call('get_tasks', { listName: 'leasing' });
    expect(r.tasks.map((t: { id: string }) => t.id).sort()).toEqual(['86b0aa004', '86b0aa005']);
    expect(r.tasks.find((t: { id: string }) => t.id === '86b0aa004')).toMatchObject({
      status: 'to do',
      priority: 'high',
      list: 'Leasing',
      tags: ['lead'],
      assignees: ['Sam Chen'],
    });
  });

  it('names the lists when a list name is unknown, and an unknown id is not found', async () => {
    await expect(call('get_tasks', { listName: 'Gardening' })).rejects.toThrow(
      /Maintenance, Leasing, Inspections/,
    );
    const e = await call('get_tasks', { listId: '999' }).catch((x) => x);
    expect(e).toMatchObject({ code: 'not_found' });
    expect(e.message).toMatch(/list_lists/);
    await expect(call('get_tasks', {})).rejects.toBeInstanceOf(ValidationError);
  });

  it('searches tasks by words', async () => {
    const r = await call('search_tasks', { query: 'heater' });
    expect(r.tasks.map((t: { id: string }) => t.id)).toEqual(['86b0aa001']);
  });

  it('backs off on 429 then answers', async () => {
    emu.state.failNext(`/api/v2/list/${IDS.inspections}/task`, 429);
    const r = await call('get_tasks', { listId: IDS.inspections });
    expect(r.count).toBe(1);
    const statuses = emu.state.requests
      .filter((x) => x.path === `/api/v2/list/${IDS.inspections}/task`)
      .slice(-2)
      .map((x) => x.status);
    expect(statuses).toEqual([429, 200]);
  });

  it('reports a malformed answer as such', async () => {
    emu.state.respondNext(`/api/v2/list/${IDS.inspections}/task`, {
      status: 200,
      body: '{"tasks":[{"id":1}]}',
    });
    await expect(call('get_tasks', { listId: IDS.inspections })).rejects.toMatchObject({
      code: 'upstream_malformed',
    });
  });

  it('turns a refused token (401) into a non-retryable error that says to check access', async () => {
    const bad = registryFor({
      board: createClickUpTaskBoard({ baseUrl: emu.apiBase, token: 'pk_wrong', teamId: emu.teamId }),
    });
    const e = await call('list_lists', {}, ctx(), bad).catch((x) => x);
    expect(e).toMatchObject({ code: 'upstream_auth_failed', retryable: false });
    expect(e.message).toMatch(/access to this service is not working/);
  });
});

describe('create_task', () => {
  it('takes the rules planner’s { name } and picks the default list', async () => {
    const c = ctx();
    const r = await call('create_task', { name: 'Fix the heater at 12 Oak St' }, c);
    expect(r).toMatchObject({ name: 'Fix the heater at 12 Oak St', list: 'Maintenance', status: 'to do' });
    expect(emu.state.task(r.id)?.description).toContain(refFooter(c.actionId as string));
    const inspection = await call('create_task', { name: 'Schedule inspection of 48 Elm Ave' });
    expect(inspection.list).toBe('Inspections');
  });

  it('honours an explicit list, priority, due day and tags', async () => {
    const r = await call('create_task', {
      name: 'Collect application from Tom',
      listName: 'Leasing',
      priority: 'high',
      dueDate: '2025-06-01',
      tags: ['lead'],
    });
    expect(r).toMatchObject({ list: 'Leasing', priority: 'high', tags: ['lead'] });
    expect(emu.state.task(r.id)?.dueDateTime).toBe(false);
  });

  it('cards #18: prepare names the list and the member before the card; the task is assigned to them', async () => {
    const tool = registry.get('create_task');
    const prepared = await tool.prepare?.(
      { name: 'Fix the heater at 12 Oak St', assignee: 'jo', dueDate: '2026-12-04' },
      ctx(),
    );
    expect(prepared).toMatchObject({ listName: 'Maintenance', assignee: 'Jo Patel', dueDate: '2026-12-04' });
    const r = await call('create_task', prepared as Record<string, unknown>);
    expect(r).toMatchObject({ list: 'Maintenance', assignees: ['Jo Patel'] });
    await expect(tool.prepare?.({ name: 'x', assignee: 'Zed' }, ctx())).rejects.toThrow(
      /No one called “Zed”.*Jo Patel/,
    );
  });

  it('reconciles: nothing before, the created task after', async () => {
    const c = ctx();
    const args = { name: 'Replace hallway bulb at 48 Elm Ave' };
    const tool = registry.get('create_task');
    await expect(tool.reconcile?.(args, c)).resolves.toBeUndefined();
    const r = await call('create_task', args, c);
    await expect(tool.reconcile?.(args, c)).resolves.toMatchObject({ id: r.id, reconciled: true });
  });

  it('retries a create refused with 429 and creates exactly one task', async () => {
    const before = emu.state.tasks(IDS.leasing).length;
    emu.state.failNext(`/api/v2/list/${IDS.leasing}/task`, 429);
    await call('create_task', { name: 'Call the new lead', listId: IDS.leasing });
    expect(emu.state.tasks(IDS.leasing)).toHaveLength(before + 1);
  });

  it('marks a 503 as outcome-unknown (left for reconcile), not as a plain failure', async () => {
    const c = ctx();
    emu.state.failNext(`/api/v2/list/${IDS.leasing}/task`, 503);
    const e = await call('create_task', { name: 'Maybe created', listId: IDS.leasing }, c).catch((x) => x);
    expect(e).toMatchObject({ outcomeUnknown: true, retryable: true });
    await expect(
      registry.get('create_task').reconcile?.({ name: 'Maybe created', listId: IDS.leasing }, c),
    ).resolves.toBeUndefined();
  });

  it('does not run outside an approved action', async () => {
    const before = emu.state.tasks().length;
    await expect(
      call('create_task', { name: 'Sneaky' }, ctx({ actionId: undefined })),
    ).rejects.toBeInstanceOf(ForbiddenError);
    expect(emu.state.tasks()).toHaveLength(before);
  });

  it('refuses bad input before approval', async () => {
    await expect(call('create_task', { name: '' })).rejects.toBeInstanceOf(ValidationError);
    await expect(call('create_task', { name: 'x', dueDate: 'next Friday' })).rejects.toThrow(/dueDate/);
    await expect(call('create_task', { name: 'x', priority: 'asap' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('update_task and delete_task', () => {
  it('updates fields and clears with null; reconcile re-applies the same update', async () => {
    const r = await call('update_task', { id: '86b0aa002', status: 'complete', priority: null });
    expect(r).toMatchObject({ id: '86b0aa002', status: 'complete', closed: true });
    expect(r.priority).toBeUndefined();
    await expect(
      registry.get('update_task').reconcile?.({ id: '86b0aa002', status: 'complete' }, ctx()),
    ).resolves.toMatchObject({ status: 'complete', reconciled: true });
  });

  it('refuses an empty update and says how to find a missing task', async () => {
    await expect(call('update_task', { id: '86b0aa002' })).rejects.toThrow(/nothing to update/);
    const e = await call('update_task', { id: 'nope', name: 'x' }).catch((x) => x);
    expect(e).toMatchObject({ code: 'not_found' });
    expect(e.message).toMatch(/search_tasks/);
  });

  it('deletes a task; reconcile after the delete reports it done without failing', async () => {
    const created = await call('create_task', { name: 'Temporary task', listId: IDS.leasing });
    await expect(call('delete_task', { id: created.id })).resolves.toEqual({ deleted: created.id });
    expect(emu.state.task(created.id)).toBeUndefined();
    await expect(registry.get('delete_task').reconcile?.({ id: created.id }, ctx())).resolves.toEqual({
      deleted: created.id,
      reconciled: true,
    });
    await expect(call('delete_task', { id: created.id })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('buildClickUpToolDeps', () => {
  it('is undefined without a token and works from the emulator env', async () => {
    expect(
      buildClickUpToolDeps({
        CLICKUP_API_BASE: emu.apiBase,
        CLICKUP_API_TOKEN: undefined,
        CLICKUP_TEAM_ID: '1',
      }),
    ).toBeUndefined();
    const deps = buildClickUpToolDeps({ ...emu.env, CLICKUP_API_TOKEN: TOKEN });
    const r = await call('list_lists', {}, ctx(), registryFor(deps as ClickUpToolDeps));
    expect(r.count).toBe(3);
  });
});
