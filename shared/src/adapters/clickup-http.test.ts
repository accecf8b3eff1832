import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickUpEmulator, startClickUpEmulator } from '../../../scripts/emulators/clickup';
import { DEMO_CLICKUP_IDS } from '../../../scripts/emulators/seed/clickup-data';
import { NotFoundError, ValidationError } from '../errors';
import type { TaskBoard } from '../ports/task-board';
import { createClickUpTaskBoard, dueFields } from './clickup-http';

const TOKEN = 'pk_test_emulator_token';
let emu: ClickUpEmulator;
let board: TaskBoard;

beforeAll(async () => {
  emu = await startClickUpEmulator({ token: TOKEN });
  board = createClickUpTaskBoard({
    baseUrl: emu.apiBase,
    token: TOKEN,
    teamId: emu.teamId,
    retry: { minDelayMs: 5, maxDelayMs: 50 },
    timezone: 'America/New_York',
  });
});
afterAll(async () => {
  await emu?.stop();
});

describe('ClickUp reads', () => {
  it('lists folderless and foldered lists of every space', async () => {
    const lists = await board.listLists();
    expect(lists).toEqual(
      expect.arrayContaining([
        { id: DEMO_CLICKUP_IDS.maintenance, name: 'Maintenance', space: 'Operations', taskCount: 3 },
        { id: DEMO_CLICKUP_IDS.leasing, name: 'Leasing', space: 'Operations', taskCount: 2 },
        {
          id: DEMO_CLICKUP_IDS.inspections,
          name: 'Inspections',
          space: 'Operations',
          folder: 'Properties',
          taskCount: 1,
        },
      ]),
    );
  });

  it('gets the open tasks of a list, closed ones on request', async () => {
    const open = await board.getTasks({ listId: DEMO_CLICKUP_IDS.maintenance });
    expect(open.map((t) => t.name).sort()).toEqual([
      'Fix heater at 12 Oak St #2',
      'Replace smoke detector batteries at 48 Elm Ave',
    ]);
    const heater = open.find((t) => t.id === '86b0aa001');
    expect(heater).toMatchObject({
      status: 'to do',
      closed: false,
      priority: 'high',
      assignees: ['Jo Patel'],
      tags: ['hvac'],
      list: { id: DEMO_CLICKUP_IDS.maintenance, name: 'Maintenance' },
      url: 'https://app.clickup.com/t/86b0aa001',
    });
    expect(heater?.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const all = await board.getTasks({ listId: DEMO_CLICKUP_IDS.maintenance, includeClosed: true });
    expect(all.find((t) => t.id === '86b0aa003')).toMatchObject({ status: 'complete', closed: true });
    const inProgress = await board.getTasks({
      listId: DEMO_CLICKUP_IDS.maintenance,
      statuses: ['in progress'],
    });
    expect(inProgress.map((t) => t.id)).toEqual(['86b0aa002']);
  });

  it('searches tasks across the workspace by words in name, description and tags', async () => {
    expect((await board.searchTasks({ query: 'heater oak' })).map((t) => t.id)).toEqual(['86b0aa001']);
    expect((await board.searchTasks({ query: 'lead' })).map((t) => t.id)).toEqual(['86b0aa004']);
    expect(await board.searchTasks({ query: 'gutter' })).toEqual([]);
    expect((await board.searchTasks({ query: 'gutter', includeClosed: true })).map((t) => t.id)).toEqual([
      '86b0aa003',
    ]);
    expect(await board.searchTasks({ query: 'heater', listIds: [DEMO_CLICKUP_IDS.leasing] })).toEqual([]);
  });

  it('maps an unknown list to NotFoundError', async () => {
    await expect(board.getTasks({ listId: '999' })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('ClickUp writes', () => {
  it('creates a task with priority, due day and tags, and finds it again by client reference', async () => {
    const created = await board.createTask({
      listId: DEMO_CLICKUP_IDS.maintenance,
      name: 'Fix dripping faucet at 7 Birch Rd',
      description: 'Tenant Priya reports a drip in the kitchen.',
      priority: 'normal',
      dueDate: '2025-04-10',
      tags: ['plumbing'],
      clientRef: 'act_task_1',
    });
    expect(created).toMatchObject({
      name: 'Fix dripping faucet at 7 Birch Rd',
      status: 'to do',
      priority: 'normal',
    });
    expect(created.description).toContain('Switchboard ref: act_task_1');
    const stored = emu.state.task(created.id);
    expect(stored).toMatchObject({
      priority: 3,
      // 04:00 New York time (EDT) on the day, as ClickUp stores a date-only due date.
      dueDate: Date.parse('2025-04-10T08:00:00Z'),
      dueDateTime: false,
      tags: ['plumbing'],
    });
    await expect(
      board.findCreated({ listId: DEMO_CLICKUP_IDS.maintenance, clientRef: 'act_task_1' }),
    ).resolves.toMatchObject({
      id: created.id,
    });
    await expect(
      board.findCreated({ listId: DEMO_CLICKUP_IDS.maintenance, clientRef: 'act_never' }),
    ).resolves.toBeUndefined();
  });

  it('updates status, priority and due date (null clears)', async () => {
    const updated = await board.updateTask('86b0aa002', {
      status: 'complete',
      priority: null,
      dueDate: null,
    });
    expect(updated).toMatchObject({ status: 'complete', closed: true });
    expect(updated.priority).toBeUndefined();
    expect(updated.dueDate).toBeUndefined();
  });

  it('deletes a task, then reports it missing', async () => {
    await board.deleteTask('86b0aa006');
    expect(emu.state.task('86b0aa006')).toBeUndefined();
    await expect(board.deleteTask('86b0aa006')).rejects.toBeInstanceOf(NotFoundError);
    await expect(board.updateTask('86b0aa006', { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses invalid input locally and relays ClickUp 400s as ValidationError', async () => {
    await expect(
      board.createTask({ listId: DEMO_CLICKUP_IDS.maintenance, name: ' ' }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(board.updateTask('86b0aa001', {})).rejects.toThrow(/nothing to update/);
    await expect(board.updateTask('86b0aa001', { status: 'blocked' })).rejects.toThrow(
      /Status does not exist/,
    );
    expect(emu.state.task('86b0aa001')?.status).toBe('to do');
  });
});

describe('ClickUp failures', () => {
  it('answers 401 to a bad token, mapped to a non-retryable auth failure', async () => {
    const res = await fetch(`${emu.apiBase}/team`, { headers: { Authorization: 'pk_wrong' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ ECODE: expect.stringMatching(/^OAUTH_/) });
    const bad = createClickUpTaskBoard({ baseUrl: emu.apiBase, token: 'pk_wrong', teamId: emu.teamId });
    await expect(bad.listLists()).rejects.toMatchObject({ code: 'upstream_auth_failed', retryable: false });
  });

  it('backs off on 429 for reads and then succeeds', async () => {
    emu.state.failNext(`/api/v2/list/${DEMO_CLICKUP_IDS.leasing}/task`, 429, { times: 2 });
    const started = Date.now();
    const tasks = await board.getTasks({ listId: DEMO_CLICKUP_IDS.leasing });
    expect(tasks.length).toBeGreaterThan(0);
    const seen = emu.state.requests
      .filter((r) => r.path === `/api/v2/list/${DEMO_CLICKUP_IDS.leasing}/task`)
      .slice(-3);
    expect(seen.map((r) => r.status)).toEqual([429, 429, 200]);
    // Bounded: the reset header says ~1 s, the adapter caps each wait at maxDelayMs (50 ms here).
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('gives up after the bounded retries with a retryable rate-limit error', async () => {
    emu.state.failNext('/api/v2/team/', 429, { times: 10 });
    await expect(board.searchTasks({ query: 'heater' })).rejects.toMatchObject({
      code: 'rate_limited',
      retryable: true,
    });
    expect(
      emu.state.requests.filter((r) => r.path.startsWith('/api/v2/team/') && r.status === 429),
    ).toHaveLength(4);
    emu.state.clearFailures();
  });

  it('never retries a write on 429', async () => {
    emu.state.failNext(`/api/v2/list/${DEMO_CLICKUP_IDS.leasing}/task`, 429);
    const before = emu.state.tasks(DEMO_CLICKUP_IDS.leasing).length;
    await expect(
      board.createTask({ listId: DEMO_CLICKUP_IDS.leasing, name: 'Call lead' }),
    ).rejects.toMatchObject({
      code: 'rate_limited',
    });
    expect(emu.state.tasks(DEMO_CLICKUP_IDS.leasing)).toHaveLength(before);
    const posts = emu.state.requests.filter((r) => r.method === 'POST');
    expect(posts.at(-1)?.status).toBe(429);
  });

  it('reports malformed and non-JSON responses as upstream faults', async () => {
    emu.state.respondNext(`/api/v2/list/${DEMO_CLICKUP_IDS.leasing}/task`, {
      status: 200,
      body: '{"tasks":[{"id":1}]}',
    });
    await expect(board.getTasks({ listId: DEMO_CLICKUP_IDS.leasing })).rejects.toMatchObject({
      code: 'upstream_malformed',
    });
    emu.state.respondNext('/api/v2/task/86b0aa001', { status: 200, body: '<html>oops</html>' });
    await expect(board.updateTask('86b0aa001', { name: 'Renamed' })).rejects.toMatchObject({
      code: 'upstream_malformed',
    });
  });

  it('retries a 5xx on reads', async () => {
    emu.state.failNext(`/api/v2/list/${DEMO_CLICKUP_IDS.leasing}/task`, 502);
    await expect(board.getTasks({ listId: DEMO_CLICKUP_IDS.leasing })).resolves.not.toHaveLength(0);
  });
});

describe('date-only due dates (ClickUp: 4 am in the setter’s zone, due_date_time false)', () => {
  it('land on the intended day in the team zone on both sides of each DST change', async () => {
    const cases: Array<[string, string, string]> = [
      // New York: spring forward 2026-03-08 02:00, fall back 2026-11-01 02:00.
      ['America/New_York', '2026-03-07', '2026-03-07T09:00:00Z'],
      ['America/New_York', '2026-03-08', '2026-03-08T08:00:00Z'],
      ['America/New_York', '2026-10-31', '2026-10-31T08:00:00Z'],
      ['America/New_York', '2026-11-01', '2026-11-01T09:00:00Z'],
      // Los Angeles, the other side of the country; Auckland, a day ahead of UTC.
      ['America/Los_Angeles', '2026-03-08', '2026-03-08T11:00:00Z'],
      ['Pacific/Auckland', '2026-04-05', '2026-04-04T16:00:00Z'],
    ];
    for (const [zone, day, utc] of cases) {
      const b = createClickUpTaskBoard({
        baseUrl: emu.apiBase,
        token: TOKEN,
        teamId: emu.teamId,
        timezone: zone,
      });
      const t = await b.createTask({
        listId: DEMO_CLICKUP_IDS.maintenance,
        name: `Due ${day} ${zone}`,
        dueDate: day,
      });
      expect(emu.state.task(t.id), `${zone} ${day}`).toMatchObject({
        dueDate: Date.parse(utc),
        dueDateTime: false,
      });
      const local = DateTime.fromMillis(Date.parse(t.dueDate ?? ''), { zone });
      expect(local.toISODate(), `${zone} ${day} read back`).toBe(day);
      // The old behaviour (UTC midnight) would read back as the day before anywhere west of UTC.
      if (zone.startsWith('America/'))
        expect(DateTime.fromMillis(Date.parse(day), { zone }).toISODate()).not.toBe(day);
    }
  });

  it('an exact time stays an exact time', () => {
    expect(dueFields('2026-03-08T15:30:00-04:00', 'America/New_York')).toEqual({
      due_date: Date.parse('2026-03-08T19:30:00Z'),
      due_date_time: true,
    });
  });
});
