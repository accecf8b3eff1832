import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SPEC_WRITE_TOOLS } from '../../shared/src/domain/policy';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms, seedPendingAction } from './seed';

/**
 * Issue 12 items 3, 4, 7 through the API: every card's arguments are checked against the tool's own schema at
 * the decision (edits included) with a 400 naming the field, sizes are bounded (400 for a field, 413 for a
 * body), and the policy's preconditions hold at the decision (an unknown recipient is a 422 then, not a
 * failure later in the worker). A refused decision leaves the card PENDING for a better edit.
 */
let h: ApiHarness;
let member: string;
beforeAll(async () => {
  h = await startApiHarness();
  member = await h.token(MEMBER, { name: 'Sam Chen' });
}, 60_000);
afterAll(async () => h?.stop());

const json = async (r: Response) =>
  (await r.json()) as { error?: { code: string; message: string }; action?: { status: string } };

async function card(tool: string, args: Record<string, unknown>) {
  const { conversation, run } = await seedInboundSms(h.core);
  const action = await seedPendingAction(h.core, {
    conversationId: conversation.id,
    runId: run.id,
    tool,
    args,
    summary: `${tool} draft`,
  });
  const path = `/api/conversations/${conversation.id}/actions/${action.id}`;
  return { path, action };
}

async function expectStillPending(path: string, actionId: string) {
  const stored = await h.core.actions.get(path.split('/')[3] ?? '', actionId);
  expect(stored?.status).toBe('PENDING');
}

const EMAIL = {
  to: 'maria.lopez@mail.example',
  subject: 'Your heater',
  body: 'Hi Maria, a technician comes at 3.',
};

describe('schemas at the decision', () => {
  test('send_email edited to {to: "not-an-email", body: 12345} is a 400 naming both fields', async () => {
    const { path, action } = await card('send_email', EMAIL);
    const res = await h.call('POST', `${path}/approve`, {
      token: member,
      body: { args: { to: 'not-an-email', body: 12345 } },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error?.code).toBe('validation_failed');
    expect(body.error?.message).toMatch(/to: /);
    expect(body.error?.message).toMatch(/body: /);
    await expectStillPending(path, action.id);
  });

  test('a 200,000-character email body is a 400 naming body, never a 500', async () => {
    const { path, action } = await card('send_email', EMAIL);
    const res = await h.call('POST', `${path}/approve`, {
      token: member,
      body: { args: { ...EMAIL, body: 'x'.repeat(200_000) } },
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error?.message).toMatch(/^The edited draft is not valid: body: /);
    await expectStillPending(path, action.id);
  });

  test('a request body over the API limit is a 413 before any route reads it', async () => {
    const { path } = await card('send_email', EMAIL);
    const res = await h.call('POST', `${path}/approve`, {
      token: member,
      body: { args: { ...EMAIL, body: 'x'.repeat(600_000) } },
    });
    expect(res.status).toBe(413);
    expect((await json(res)).error?.code).toBe('payload_too_large');
  });

  // Every write tool a card can carry, each with arguments of the wrong type: a 400 that names a field.
  test.each([...SPEC_WRITE_TOOLS])('%s with garbage arguments is a 400 naming a field', async (tool) => {
    const { path, action } = await card(tool, { bogus: true });
    const res = await h.call('POST', `${path}/approve`, {
      token: member,
      body: { args: { id: 12, to: 5, text: [] } },
    });
    expect(res.status, tool).toBe(400);
    expect((await json(res)).error?.message).toMatch(/: /);
    // Approved as drafted, an invalid stored draft is refused too (it must be edited first).
    const asIs = await h.call('POST', `${path}/approve`, { token: member });
    expect(asIs.status, tool).toBe(400);
    expect((await json(asIs)).error?.message).toMatch(/edit it first/);
    await expectStillPending(path, action.id);
  });
});

describe('policy preconditions at the decision', () => {
  test('an edit to a well-formed but unknown recipient is a 422 with the reason', async () => {
    const { path, action } = await card('send_message', {
      to: '+14155550111',
      text: 'Hi Maria, we are on it.',
    });
    const res = await h.call('POST', `${path}/approve`, {
      token: member,
      body: { args: { to: '+14155550999', text: 'Hi, we are on it.' } },
    });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body.error?.code).toBe('precondition_failed');
    expect(body.error?.message).toMatch(/known_contact\(.?\+14155550999/);
    await expectStillPending(path, action.id);
  });

  test('the same card approved for a known contact goes through', async () => {
    const { path } = await card('send_message', { to: '+14155550111', text: 'Hi Maria, we are on it.' });
    const res = await h.call('POST', `${path}/approve`, { token: member });
    expect(res.status).toBe(200);
    expect((await json(res)).action?.status).toBe('APPROVED');
    await h.receiveEvents();
  });
});
