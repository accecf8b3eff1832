import { describe, expect, test } from 'vitest';
import { DEMO_PEOPLE } from '../../scripts/emulators/seed/demo-team';
import { decisionCheck } from '../../shared/src/agent/decision-check';
import { executeApprovedAction } from '../../shared/src/agent/execute-action';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { argsHash } from '../../shared/src/domain/args-hash';
import {
  createPolicyGuard,
  InMemoryFactStore,
  loadDefaultRulebase,
  SPEC_TOOLS,
} from '../../shared/src/domain/policy';
import { silentLog } from '../../shared/src/ports/logger';
import { InMemoryActionStore, InMemoryAuditLog } from '../../shared/src/testing/in-memory-stores';
import { sendEmail } from '../../shared/src/tools/google';
import { bindTool, ToolRegistry } from '../../shared/src/tools/registry';

/**
 * Decision-time preconditions evaluate the whole card (issue 12 item 7), and the executor parses a card's
 * arguments with the tool's schema before it runs (item 3): a bad card ends FAILED with the reason instead
 * of throwing until its event dead-letters.
 */
const C = 'c_dc';
const at = '2026-01-14T17:00:00.000Z'; // 12:00 in New York: no quiet hours
const NEW_LEAD = '+14155550188';

function card(
  tool: string,
  args: Record<string, unknown>,
  status: PendingAction['status'] = 'PENDING',
): PendingAction {
  return {
    id: 'act_1',
    conversationId: C,
    runId: 'run_1',
    tool,
    args,
    argsHash: argsHash(tool, args),
    summary: tool,
    status,
    proposedBy: 'planner',
    reason: 'test',
    review: {},
    createdAt: at,
    updatedAt: at,
    version: 0,
  };
}

function checker() {
  const rulebase = loadDefaultRulebase({ tools: SPEC_TOOLS });
  const guard = createPolicyGuard({
    rulebase,
    facts: new InMemoryFactStore(),
    conversationId: C,
    tools: SPEC_TOOLS,
  });
  return decisionCheck({
    guard,
    clock: () => new Date(at),
    timezone: 'America/New_York',
    // The address book as OpenPhone's fuzzy search returns it: the new lead is not in it.
    readTool: async () => ({
      contacts: DEMO_PEOPLE.map((p) => ({
        id: p.id,
        name: p.firstName,
        phones: [p.phone],
        internal: p.internal,
      })),
    }),
  });
}

describe('decision-time preconditions', () => {
  test('a text to an unknown number is refused with the reason', async () => {
    const args = { to: NEW_LEAD, text: 'Hi, thanks for your interest.' };
    const v = await checker()(card('send_message', args), args);
    expect(v).toMatchObject({ ok: false, reason: expect.stringMatching(/known_contact/) });
  });

  test('a card that first creates the contact satisfies known_contact for its own send', async () => {
    const args = {
      to: NEW_LEAD,
      text: 'Hi Jo, thanks for your interest.',
      create_contact: { firstName: 'Jo', phone: NEW_LEAD },
    };
    expect(await checker()(card('send_message', args), args)).toEqual({ ok: true });
  });

  test('a known contact passes', async () => {
    const args = { to: '+14155550111', text: 'Hi Maria.' };
    expect(await checker()(card('send_message', args), args)).toEqual({ ok: true });
  });
});

describe('the executor parses arguments before it runs', () => {
  test('an approved send_email with {to: "not-an-email", body: 12345} ends FAILED with the reason, nothing runs', async () => {
    const actions = new InMemoryActionStore();
    const audit = new InMemoryAuditLog();
    let ran = 0;
    const registry = new ToolRegistry([{ ...bindTool(sendEmail, {} as never), run: async () => ran++ }]);
    await actions.create(card('send_email', { to: 'not-an-email', body: 12345 }, 'APPROVED'));
    const ctx = { conversationId: C, runId: 'run_1', now: new Date(at), timezone: 'UTC' };
    const deps = {
      actions,
      audit,
      registry,
      log: silentLog,
      clock: () => new Date(at),
      staleExecutingMs: 60_000,
    };
    const out = await executeApprovedAction(deps, { conversationId: C, actionId: 'act_1' }, ctx);
    expect(out.ok).toBe(false);
    expect(ran).toBe(0);
    const stored = await actions.get(C, 'act_1');
    expect(stored?.status).toBe('FAILED');
    expect(stored?.error).toMatch(/not valid for send_email: .*to.*body/);
    // Redelivered: the same answer, still nothing run.
    expect((await executeApprovedAction(deps, { conversationId: C, actionId: 'act_1' }, ctx)).ok).toBe(false);
    expect(ran).toBe(0);
  });
});
