import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickUpEmulator, startClickUpEmulator } from './clickup';
import { buildClickUpSeed, DEMO_CLICKUP_IDS } from './seed/clickup-data';

const TOKEN = 'pk_emulator';
let emu: ClickUpEmulator;

beforeAll(async () => {
  const seed = buildClickUpSeed();
  // 150 extra tasks so the 100-per-page paging is exercised.
  const extra = Array.from({ length: 150 }, (_, i) => ({
    id: `86bx${String(i).padStart(5, '0')}`,
    listId: DEMO_CLICKUP_IDS.inspections,
    name: `Unit check ${i}`,
    status: 'to do',
    createdDaysAgo: 40,
  }));
  emu = await startClickUpEmulator({ token: TOKEN, seed: { ...seed, tasks: [...seed.tasks, ...extra] } });
});
afterAll(async () => {
  await emu?.stop();
});

const get = async (path: string, auth: string | null = TOKEN) => {
  const res = await fetch(`${emu.apiBase}${path}`, { headers: auth === null ? {} : { Authorization: auth } });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};

describe('ClickUp emulator', () => {
  it('requires the token in Authorization (raw or Bearer) and sends rate-limit headers', async () => {
    expect(await get('/team', null)).toMatchObject({ status: 401, body: { ECODE: 'OAUTH_017' } });
    expect((await get('/team', `Bearer ${TOKEN}`)).status).toBe(200);
    const ok = await get('/team');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses another team id', async () => {
    expect(await get('/team/123/space')).toMatchObject({ status: 401, body: { ECODE: 'OAUTH_027' } });
  });

  it('pages tasks 100 at a time with last_page', async () => {
    const first = await get(`/list/${DEMO_CLICKUP_IDS.inspections}/task?page=0`);
    expect(first.body).toMatchObject({ last_page: false });
    expect(first.body.tasks).toHaveLength(100);
    const second = await get(`/list/${DEMO_CLICKUP_IDS.inspections}/task?page=1`);
    expect(second.body).toMatchObject({ last_page: true });
    expect(second.body.tasks).toHaveLength(51);
  });

  it('filters team tasks by list, space and status', async () => {
    const byStatus = await get(`/team/${emu.teamId}/task?statuses[]=in%20progress`);
    expect((byStatus.body.tasks as { id: string }[]).map((t) => t.id).sort()).toEqual([
      '86b0aa002',
      '86b0aa005',
    ]);
    const byList = await get(`/team/${emu.teamId}/task?list_ids[]=${DEMO_CLICKUP_IDS.leasing}`);
    expect(byList.body.tasks).toHaveLength(2);
    const task = (byList.body.tasks as Record<string, unknown>[])[0];
    expect(task).toMatchObject({ folder: { hidden: true }, space: { id: DEMO_CLICKUP_IDS.space } });
  });

  it('answers ClickUp-shaped errors for unknown items and bad bodies', async () => {
    expect(await get('/task/nope')).toMatchObject({
      status: 404,
      body: { err: expect.any(String), ECODE: expect.any(String) },
    });
    const res = await fetch(`${emu.apiBase}/list/${DEMO_CLICKUP_IDS.leasing}/task`, {
      method: 'POST',
      headers: { Authorization: TOKEN, 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    expect(res.status).toBe(400);
  });
});
