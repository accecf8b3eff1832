import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { executeApprovedAction } from '../../shared/src/agent/execute-action';
import { decisionResponse } from '../../shared/src/contracts/api';
import { argsHash, cardArgsHash } from '../../shared/src/domain/args-hash';
import { bindTool, ToolRegistry } from '../../shared/src/tools/registry';
import type { Tool } from '../../shared/src/tools/tool';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms } from './seed';

/**
 * Issue 12: retrying a FAILED card makes a new action with a new argument hash, approved afresh, through the
 * public API (DynamoDB Local); the executor runs the new card and would refuse the old approval's hash on it.
 */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

/** A stand-in send_message (our own tool interface, not a vendor SDK): records what it was asked to send. */
function recordingRegistry(sent: unknown[]) {
  const tool: Tool<z.ZodType, undefined> = {
    name: 'send_message',
    group: 'openphone',
    kind: 'write',
    description: 'test',
    input: z.object({ to: z.string(), text: z.string() }),
    async run(_d, input) {
      sent.push(input);
      return { ok: true };
    },
  };
  return new ToolRegistry([bindTool(tool, undefined)]);
}

test('Retry: a new card, a new hash, PENDING until approved; approving it runs it once', async () => {
  const { conversation, action } = await seedInboundSms(h.core);
  const at = new Date().toISOString();
  await h.core.actions.transition(conversation.id, action.id, ['PENDING'], 'APPROVED', {
    decidedBy: 'jo@oakproperties.example',
    decidedAt: at,
    updatedAt: at,
  });
  await h.core.conversations.adjustPending(conversation.id, -1);
  await h.core.actions.transition(conversation.id, action.id, ['APPROVED'], 'FAILED', {
    error: 'OpenPhone failed (500)',
    updatedAt: at,
  });
  const token = await h.token(MEMBER);
  const base = `/api/conversations/${conversation.id}/actions`;
  const res = await h.call('POST', `${base}/${action.id}/retry`, { token });
  expect(res.status).toBe(201);
  const fresh = decisionResponse.parse(await res.json()).action;
  expect(fresh.id).not.toBe(action.id);
  expect(fresh).toMatchObject({ status: 'PENDING', retryOf: action.id, args: action.args });
  expect(fresh.argsHash).not.toBe(action.argsHash);
  expect(fresh.argsHash).not.toBe(argsHash(action.tool, action.args));
  expect(fresh.argsHash).toBe(cardArgsHash(fresh, fresh.args));

  const approved = await h.call('POST', `${base}/${fresh.id}/approve`, { token, body: {} });
  expect(approved.status).toBe(200);
  expect(decisionResponse.parse(await approved.json()).action).toMatchObject({
    status: 'APPROVED',
    argsHash: fresh.argsHash,
  });
  const sent: unknown[] = [];
  const deps = {
    actions: h.core.actions,
    registry: recordingRegistry(sent),
    audit: h.core.audit,
    log: h.core.log,
    clock: () => new Date(),
    staleExecutingMs: 60_000,
  };
  const ctx = { conversationId: conversation.id, runId: fresh.runId, now: new Date(), timezone: 'UTC' };
  const ref = { conversationId: conversation.id, actionId: fresh.id };
  expect(await executeApprovedAction(deps, ref, ctx)).toMatchObject({ ok: true });
  expect(await executeApprovedAction(deps, ref, ctx)).toMatchObject({ ok: true });
  expect(sent).toEqual([action.args]);

  // A card carrying the failed card's hash (an old approval) would be refused by the executor.
  const forged = { ...fresh, argsHash: action.argsHash };
  expect(cardArgsHash(forged, forged.args)).not.toBe(forged.argsHash);
});
