import { describe, expect, test } from 'vitest';
import { FocusRejectedError, PolicyQueryError } from './errors';
import { createPolicyGuard, runSeeds } from './guard';
import { InMemoryFactStore } from './in-memory-fact-store';
import { loadRulebase } from './load';

/** The seed document's example: "Check my booking BK-789" … "Actually, what about my other booking?" */
const RULES = `
context current_user fixed "The signed-in user".
context booking_of_interest "The booking the conversation is about"
  where user_booking(current_user, booking_of_interest).
base current_user(U).
base today(D).
base team_timezone(Z).
bind user_booking(U, B) from list_bookings(user_id: U) each "bookings[*]" { B: "id" }.
ttl user_booking 10m.
bind booking_status(B, S) from get_booking(booking_id: B) { S: "status" }.
ttl booking_status 60s.
can_refund(U, B) :- user_booking(U, B), booking_status(B, cancelled).
`;
const TOOLS = [
  { name: 'list_bookings', kind: 'read' as const },
  { name: 'get_booking', kind: 'read' as const },
];
const BOOKINGS: Record<string, string> = { bk_789: 'confirmed', bk_456: 'cancelled' };
const NOW = new Date('2025-01-15T15:00:00Z');

describe('focus shift (seed example)', () => {
  test('the same symbolic query follows the rebound context variable', async () => {
    const facts = new InMemoryFactStore();
    const calls: string[] = [];
    const env = {
      now: NOW,
      timezone: 'America/New_York',
      async callReadTool(tool: string, args: Record<string, unknown>) {
        calls.push(`${tool}(${JSON.stringify(args)})`);
        if (tool === 'list_bookings') return { bookings: Object.keys(BOOKINGS).map((id) => ({ id })) };
        return { status: BOOKINGS[String(args.booking_id)] };
      },
    };
    // Step 1 — init: current_user(u_123), today(2025-01-15).
    const policy = createPolicyGuard({
      rulebase: loadRulebase(RULES, { tools: TOOLS }),
      facts,
      conversationId: 'chat-1',
      context: { current_user: 'u_123' },
      seeds: runSeeds({ now: NOW, timezone: 'America/New_York', currentUser: 'u_123' }),
      tools: TOOLS,
    });
    expect(await policy.summarize(env)).toContain('today("2025-01-15") — set at run start');

    // Steps 2-3 — "Check my booking BK-789": the model lists the user's bookings (a guarded tool call whose
    // result becomes facts) and focuses on bk_789.
    const listed = await policy.recordToolResult(
      'list_bookings',
      { user_id: 'u_123' },
      { bookings: [{ id: 'bk_789' }, { id: 'bk_456' }] },
      NOW,
    );
    expect(listed).toBe(2);
    await policy.setFocus('booking_of_interest', 'bk_789', env);

    // Step 4 — booking_status(booking_of_interest, Status) → confirmed.
    const first = await policy.query('booking_status(booking_of_interest, Status)', env);
    expect(first.answers.map((a) => a.bindings)).toEqual([{ Status: 'confirmed' }]);

    // Steps 5-6 — "Actually, what about my other booking?": rebind.
    const rebound = await policy.setFocus('booking_of_interest', 'bk_456', env);
    expect(rebound).toEqual({ name: 'booking_of_interest', value: 'bk_456', previous: 'bk_789' });

    // Step 7 — the same symbolic query now resolves to BK-456.
    const second = await policy.query('booking_status(booking_of_interest, Status)', env);
    expect(second.answers.map((a) => a.bindings)).toEqual([{ Status: 'cancelled' }]);
    expect((await policy.query('can_refund(current_user, booking_of_interest)', env)).status).toBe('proved');

    // The bookings came from the recorded list, so the where-clause needed no new fetch.
    expect(calls).toEqual(['get_booking({"booking_id":"bk_789"})', 'get_booking({"booking_id":"bk_456"})']);

    // The focus outlives the run: the next run's engine (same store) sees bk_456.
    const nextRun = createPolicyGuard({
      rulebase: policy.rulebase,
      facts,
      conversationId: 'chat-1',
      context: { current_user: 'u_123' },
    });
    expect(await nextRun.focus(NOW)).toEqual({ current_user: 'u_123', booking_of_interest: 'bk_456' });
  });

  test('focus cannot point at an entity the where-clause does not establish, nor move a fixed context', async () => {
    const policy = createPolicyGuard({
      rulebase: loadRulebase(RULES, { tools: TOOLS }),
      facts: new InMemoryFactStore(),
      conversationId: 'chat-2',
      context: { current_user: 'u_123' },
    });
    const env = {
      now: NOW,
      timezone: 'UTC',
      callReadTool: async () => ({ bookings: [{ id: 'bk_789' }] }),
    };
    await expect(policy.setFocus('booking_of_interest', 'bk_999', env)).rejects.toThrow(FocusRejectedError);
    await expect(policy.setFocus('current_user', 'u_999', env)).rejects.toThrow(/fixed/);
    await expect(policy.setFocus('flight_of_interest', 'x', env)).rejects.toThrow(/not a context variable/);
    expect(await policy.focus(NOW)).toEqual({ current_user: 'u_123' });
  });

  test('symbolic mode refuses literal entity ids in a query', async () => {
    const policy = createPolicyGuard({
      rulebase: loadRulebase(RULES, { tools: TOOLS }),
      facts: new InMemoryFactStore(),
      conversationId: 'chat-3',
      context: { current_user: 'u_123' },
    });
    const env = { now: NOW, timezone: 'UTC' };
    await expect(policy.query('booking_status("bk_789", S)', env, { symbolic: true })).rejects.toThrow(
      PolicyQueryError,
    );
    await expect(policy.query('booking_status(bk_789, S)', env, { symbolic: true })).rejects.toThrow(
      /symbolic/,
    );
    // Vocabulary constants (here `cancelled`) and context variables are fine.
    const ok = await policy.query('booking_status(booking_of_interest, cancelled)', env, { symbolic: true });
    expect(ok.missing.focus).toEqual(['booking_of_interest']);
  });
});
