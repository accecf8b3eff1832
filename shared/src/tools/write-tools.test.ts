import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickUpEmulator, startClickUpEmulator } from '../../../scripts/emulators/clickup';
import { type GoogleEmulator, startGoogleEmulator } from '../../../scripts/emulators/google';
import { freshTable } from '../../../test/helpers';
import { createClickUpTaskBoard } from '../adapters/clickup-http';
import { dynamoActionStore } from '../adapters/dynamo/action-store';
import { dynamoAuditLog } from '../adapters/dynamo/audit-log';
import { createGoogleAuth } from '../adapters/google/auth';
import { createGmailMailbox } from '../adapters/google/gmail-mailbox';
import { createGoogleCalendar } from '../adapters/google/google-calendar';
import { createGoogleDrive } from '../adapters/google/google-drive';
import { type ExecuteDeps, executeApprovedAction } from '../agent/execute-action';
import type { ActionStatus, PendingAction } from '../contracts/conversations';
import { argsHash } from '../domain/args-hash';
import { silentLog } from '../ports/logger';
import { clickUpTools } from './clickup';
import { dbSearchTools } from './db-search';
import { googleTools } from './google';
import { type BoundTool, bindAll, ToolRegistry } from './registry';
import type { Tool } from './tool';
import { webTools } from './web';

/**
 * SPEC §6.1 at the runtime level: the executor is the only path from a write tool to a provider, and it
 * refuses anything but an APPROVED action whose arguments still hash to what was approved.
 */
const TZ = 'America/New_York';
const TOKEN = 'pk_exec_token';
const CONV = 'conv_exec';

let google: GoogleEmulator;
let clickup: ClickUpEmulator;
let registry: ToolRegistry;
let exec: ExecuteDeps;
let clock = new Date('2025-03-01T12:00:00Z');
let seq = 0;

beforeAll(async () => {
  [google, clickup] = await Promise.all([startGoogleEmulator(), startClickUpEmulator({ token: TOKEN })]);
  const auth = createGoogleAuth({ serviceAccount: google.serviceAccountJson, subject: google.mailbox });
  const common = { auth, rootUrl: `${google.url}/`, retry: { retryDelayMs: 10, maxRetryDelayMs: 20 } };
  const tools: BoundTool[] = [
    ...bindAll(googleTools, {
      mailbox: createGmailMailbox({ ...common, address: google.mailbox }),
      calendar: createGoogleCalendar({ ...common, timezone: TZ }),
      drive: createGoogleDrive(common),
    }),
    ...bindAll(clickUpTools, {
      board: createClickUpTaskBoard({ baseUrl: clickup.apiBase, token: TOKEN, teamId: clickup.teamId }),
    }),
  ];
  registry = new ToolRegistry(tools);
  const table = await freshTable('exec');
  exec = {
    actions: dynamoActionStore(table),
    registry,
    audit: dynamoAuditLog(table),
    log: silentLog,
    clock: () => clock,
    staleExecutingMs: 60_000,
  };
});
afterAll(async () => {
  await Promise.all([google?.stop(), clickup?.stop()]);
});

const providerCalls = () => google.state.requests.length + clickup.state.requests.length;
const toolCtx = () => ({ conversationId: CONV, runId: 'run_exec', now: clock, timezone: TZ });

async function action(
  tool: string,
  approvedArgs: Record<string, unknown>,
  status: ActionStatus,
  storedArgs: Record<string, unknown> = approvedArgs,
  extra: Partial<PendingAction> = {},
): Promise<PendingAction> {
  const v = registry.validateArgs(tool, approvedArgs);
  if (!v.ok) throw new Error(v.reason);
  const a: PendingAction = {
    id: `act_exec_${++seq}`,
    conversationId: CONV,
    runId: 'run_exec',
    tool,
    args: storedArgs === approvedArgs ? v.args : storedArgs,
    argsHash: argsHash(tool, v.args),
    summary: registry.get(tool).summarize(v.args),
    status,
    proposedBy: 'planner',
    reason: 'test',
    review: {},
    createdAt: clock.toISOString(),
    updatedAt: clock.toISOString(),
    version: 1,
    ...extra,
  };
  await exec.actions.create(a);
  return a;
}

const email = { to: 'tom.becker@mail.example', subject: 'Showing', body: 'See you at 10.' };
const event = { summary: 'Showing', start: '2025-03-09T10:00', end: '2025-03-09T10:30', timeZone: TZ };
const task = { name: 'Fix the heater at 12 Oak St' };

describe('write tools only run through an approved action', () => {
  it.each([
    ['send_email', email],
    ['create_calendar_event', event],
    ['create_task', task],
  ])('%s: a PENDING action is refused without any call to the provider', async (tool, args) => {
    const a = await action(tool, args, 'PENDING');
    const before = providerCalls();
    const r = await executeApprovedAction(exec, { conversationId: CONV, actionId: a.id }, toolCtx());
    expect(r).toEqual({ ok: false, error: 'action is PENDING, not approved' });
    expect(providerCalls()).toBe(before);
    expect((await exec.actions.get(CONV, a.id))?.status).toBe('PENDING');
  });

  it.each([
    ['send_email', email, { ...email, to: 'attacker@evil.example' }],
    ['create_calendar_event', event, { ...event, attendees: ['attacker@evil.example'] }],
    ['create_task', task, { ...task, listName: 'Leasing' }],
    ['delete_task', { id: '86b0aa001' }, { id: '86b0aa004' }],
  ])('%s: arguments changed after approval are refused (hash mismatch)', async (tool, approved, tampered) => {
    const a = await action(tool, approved, 'APPROVED', tampered);
    const before = providerCalls();
    const r = await executeApprovedAction(exec, { conversationId: CONV, actionId: a.id }, toolCtx());
    expect(r).toEqual({ ok: false, error: 'refused: the arguments differ from what was approved' });
    expect(providerCalls()).toBe(before);
    expect((await exec.actions.get(CONV, a.id))?.status).toBe('FAILED');
  });

  it('an APPROVED action runs exactly once, redelivery included', async () => {
    const a = await action('send_email', { ...email, subject: 'Exactly once' }, 'APPROVED');
    const ref = { conversationId: CONV, actionId: a.id };
    const first = await executeApprovedAction(exec, ref, toolCtx());
    const again = await executeApprovedAction(exec, ref, toolCtx());
    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(google.state.sent().filter((s) => s.subject === 'Exactly once')).toHaveLength(1);
  });

  it.each([
    ['send_email', { ...email, subject: 'Crashed send' }],
    ['create_calendar_event', { ...event, summary: 'Crashed event' }],
    ['create_task', { name: 'Crashed task' }],
  ])('%s: after a crash mid-write, reconcile finds it instead of writing again', async (tool, args) => {
    const executingSince = new Date(clock.getTime() - 10 * 60_000).toISOString();
    const a = await action(tool, args, 'EXECUTING', args, { executingSince });
    // The write reached the provider, then the worker died before recording it.
    const stored = await exec.actions.get(CONV, a.id);
    await registry.get(tool).run(stored?.args ?? {}, { ...toolCtx(), actionId: a.id });
    const count = () =>
      google.state.sent().length + google.state.events().length + clickup.state.tasks().length;
    const before = count();
    const r = await executeApprovedAction(exec, { conversationId: CONV, actionId: a.id }, toolCtx());
    expect(r).toMatchObject({ ok: true, result: { reconciled: true } });
    expect(count()).toBe(before);
    expect((await exec.actions.get(CONV, a.id))?.status).toBe('EXECUTED');
  });

  it('a write whose outcome is unknown (503) is left EXECUTING for reconciliation, not failed', async () => {
    const a = await action('create_task', { name: 'Flaky create', listName: 'Leasing' }, 'APPROVED');
    clickup.state.failNext(`/api/v2/list/`, 503);
    await expect(
      executeApprovedAction(exec, { conversationId: CONV, actionId: a.id }, toolCtx()),
    ).rejects.toMatchObject({ retryable: true });
    expect((await exec.actions.get(CONV, a.id))?.status).toBe('EXECUTING');
    clock = new Date(clock.getTime() + 5 * 60_000);
    const r = await executeApprovedAction(exec, { conversationId: CONV, actionId: a.id }, toolCtx());
    expect(r.ok).toBe(true);
    expect(clickup.state.tasks().filter((t) => t.name === 'Flaky create')).toHaveLength(1);
  });
});

describe('every write tool defined here', () => {
  // biome-ignore lint/suspicious/noExplicitAny: a list of tools with different input schemas
  const all: Tool<any, any>[] = [...googleTools, ...clickUpTools, ...dbSearchTools, ...webTools];
  const writes = all.filter((t) => t.kind === 'write');

  it('are the ones SPEC §3.4 lists for these groups', () => {
    expect(writes.map((t) => t.name).sort()).toEqual(
      ['create_calendar_event', 'create_task', 'delete_task', 'send_email', 'update_task'].sort(),
    );
  });

  it.each(writes.map((t) => [t.name, t] as const))(
    '%s has a summary for the card and a reconcile step',
    (_, t) => {
      expect(typeof t.summarize).toBe('function');
      expect(typeof t.reconcile).toBe('function');
      expect(t.description).toMatch(/approval/i);
    },
  );

  it('read tools are never marked write, and names are unique', () => {
    expect(new Set(all.map((t) => t.name)).size).toBe(all.length);
    for (const t of all.filter((x) => x.kind !== 'write')) expect(t.kind).toBe('read');
  });
});
