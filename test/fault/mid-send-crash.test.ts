import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { EmulatedMessage } from '../../scripts/emulators/openphone';
import { workspaceFile } from '../../scripts/emulators/openphone-store';
import { simulateSms } from '../../scripts/simulate-sms';
import { type Core, getCore, resetComposition } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { decideApproval } from '../../shared/src/use-cases/decide-approval';

/**
 * Issue 12, "killed in the middle of a send": a card is approved, the worker sends the text, the OpenPhone
 * emulator accepts and stores it (in the data folder, as Quo would keep it) but the answer never comes back,
 * and the whole stack is SIGKILLed right then. The stack is started again on the same data folder; the approval
 * is redelivered, the worker finds the action EXECUTING, asks the provider (reconcile-before-resend) and finds
 * the message. Exactly one message at the end, and the audit says it was reconciled, not resent.
 */
const MARIA = '+14155550111';
const TEXT = 'Hi Maria, a plumber will come by tomorrow at 9.';
const dir = mkdtempSync(join(tmpdir(), 'sb-crash-'));
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child?.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
  resetComposition();
  rmSync(dir, { recursive: true, force: true });
});

function startStack(holdSends: boolean): Promise<{ url: string; env: Record<string, string> }> {
  const args = [
    '--import',
    'tsx',
    join(__dirname, 'stack-child.ts'),
    dir,
    ...(holdSends ? ['--hold-sends'] : []),
  ];
  // Its own process group, so one kill takes the stack and DynamoDB Local's Java with it.
  child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = child;
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    proc.stderr?.on('data', (c: Buffer) => {
      err += c.toString('utf8');
    });
    proc.on('exit', (code) => reject(new Error(`stack exited (${code}): ${err.slice(-2000)}`)));
  });
}

async function killStack() {
  const proc = child;
  if (!proc?.pid) return;
  const exited = new Promise((r) => proc.once('exit', r));
  process.kill(-proc.pid, 'SIGKILL');
  await exited;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const coreFor = (env: Record<string, string>) => {
  resetComposition();
  return getCore('crash-test', env);
};
const stored = (): EmulatedMessage[] => {
  try {
    const w = JSON.parse(readFileSync(workspaceFile(dir), 'utf8')) as { messages: EmulatedMessage[] };
    return w.messages.filter((m) => m.direction === 'outgoing' && m.to.includes(MARIA) && m.text === TEXT);
  } catch {
    return [];
  }
};

test('SIGKILL in the middle of a send, restart on the same data: exactly one message, reconciled', async () => {
  const first = await startStack(true);
  let core: Core = await coreFor(first.env);
  const answer = await simulateSms(
    { url: first.url, openPhoneWebhookSecret: first.env.OPENPHONE_WEBHOOK_SECRET ?? '', env: {} },
    { from: MARIA, text: 'Hi, the kitchen sink is leaking slowly', scheme: 'standard' },
  );
  expect(answer.status).toBe(202);
  const card = await until('a pending card', async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${MARIA}`);
    const actions = conv ? await core.actions.listByConversation(conv.id) : [];
    return actions.find((a: PendingAction) => a.status === 'PENDING' && a.tool === 'send_message');
  });
  await decideApproval(
    { ...core, validateArgs: (_t, args) => ({ ok: true, args: args as Record<string, unknown> }) },
    {
      conversationId: card.conversationId,
      actionId: card.id,
      decision: 'approve',
      editedArgs: { ...card.args, text: TEXT },
      user: { id: 'u_sam', email: 'sam@oakproperties.example' },
    },
  );
  // The emulator accepted and stored the send; its answer is held. Kill everything now.
  await until('the send to reach the provider', async () => (stored().length === 1 ? true : undefined));
  await killStack();

  const second = await startStack(false);
  core = await coreFor(second.env);
  const executed = await until('the action to be reconciled', async () => {
    const a = await core.actions.get(card.conversationId, card.id);
    return a?.status === 'EXECUTED' ? a : undefined;
  });
  expect(stored()).toHaveLength(1);
  // The audit line follows the EXECUTED transition; wait for it rather than race it.
  const audit = await until('the reconcile to be audited', async () => {
    const entries = await core.audit.list(card.conversationId);
    return entries.some((e) => e.type === 'action.reconciled') ? entries : undefined;
  });
  expect(audit.filter((e) => e.type === 'action.executed')).toHaveLength(0);
  expect(executed.result).toMatchObject({ messageId: stored()[0]?.id, reconciled: true });
  // And it stays one: a while later nothing else went out.
  await new Promise((r) => setTimeout(r, 3000));
  expect(stored()).toHaveLength(1);
  await killStack();
}, 400_000);
