import { parseJsonEventStream, readUIMessageStream, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  auditResponse,
  type ChatUIMessage,
  conversationDetail,
  decisionConflict,
  decisionResponse,
  devSessionResponse,
  devTeamResponse,
  instructionsResponse,
  listConversationsResponse,
  markReadResponse,
  meResponse,
  publicConfigResponse,
} from '../../shared/src/contracts/api';
import type { Run } from '../../shared/src/contracts/runs';
import { newId } from '../../shared/src/ids';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms, seedPendingAction } from './seed';

let h: ApiHarness;
let member: string;
let admin: string;

beforeAll(async () => {
  h = await startApiHarness({ chatTimeoutMs: 3000 });
  member = await h.token(MEMBER, { name: 'Sam Chen' });
  admin = await h.token(ADMIN);
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function json(res: Response) {
  return res.json() as Promise<unknown>;
}

describe('session and config', () => {
  test('GET /api/config gives the public bits only', async () => {
    const res = await h.call('GET', '/api/config');
    const body = publicConfigResponse.parse(await json(res));
    expect(body).toMatchObject({
      stage: 'test',
      devSignIn: false,
      vapidPublicKey: 'BPublicVapidKeyForTests',
    });
    const raw = JSON.stringify(body);
    expect(raw).not.toContain('never-in-a-response');
    expect(raw).not.toContain('PRIVATE KEY');
  });

  test('GET /api/me says who is signed in and whether they are an admin', async () => {
    const me = meResponse.parse(await json(await h.call('GET', '/api/me', { token: member })));
    expect(me.user).toMatchObject({ email: MEMBER, name: 'Sam Chen', isAdmin: false });
    const boss = meResponse.parse(await json(await h.call('GET', '/api/me', { token: admin })));
    expect(boss.user.isAdmin).toBe(true);
  });
});

describe('conversations', () => {
  test('the list is shared, carries trigger metadata and per-person unread marks', async () => {
    const { conversation } = await seedInboundSms(h.core);
    const list = listConversationsResponse.parse(
      await json(await h.call('GET', '/api/conversations', { token: member })),
    );
    const item = list.conversations.find((c) => c.id === conversation.id);
    expect(item).toMatchObject({
      source: 'sms',
      contact: { name: 'Maria Lopez', phone: '+14155550111' },
      pendingCount: 1,
      unread: true,
    });
    // People's words, not the assistant's summary (issue 19).
    expect(item?.preview).toMatch(/^Maria Lopez: Hi, the heater/);

    const read = await h.call('POST', `/api/conversations/${conversation.id}/read`, { token: member });
    expect(read.status).toBe(200);
    const after = listConversationsResponse.parse(
      await json(await h.call('GET', '/api/conversations', { token: member })),
    );
    expect(after.conversations.find((c) => c.id === conversation.id)?.unread).toBe(false);
    const forAdmin = listConversationsResponse.parse(
      await json(await h.call('GET', '/api/conversations', { token: admin })),
    );
    expect(forAdmin.conversations.find((c) => c.id === conversation.id)?.unread).toBe(true);
  });

  test('a read mark stops at the newest message the screen showed: one that came after stays unread', async () => {
    const { conversation } = await seedInboundSms(h.core);
    const unreadFor = async () =>
      listConversationsResponse
        .parse(await json(await h.call('GET', '/api/conversations', { token: member })))
        .conversations.find((c) => c.id === conversation.id)?.unread;
    const shown = new Date(Date.parse(conversation.lastMessageAt) - 1_000).toISOString();
    const early = await h.call('POST', `/api/conversations/${conversation.id}/read`, {
      token: member,
      body: { through: shown },
    });
    expect(await json(early)).toEqual({ ok: true, readAt: shown });
    expect(await unreadFor()).toBe(true);
    // A `through` ahead of the server's clock (a client's skew) counts as now, never later.
    const ahead = await h.call('POST', `/api/conversations/${conversation.id}/read`, {
      token: member,
      body: { through: '2999-01-01T00:00:00.000Z' },
    });
    expect(markReadResponse.parse(await json(ahead)).readAt < '2999').toBe(true);
    expect(await unreadFor()).toBe(false);
    for (const body of [{ through: 'yesterday' }, { at: conversation.lastMessageAt }, '{']) {
      const bad = await h.call('POST', `/api/conversations/${conversation.id}/read`, { token: member, body });
      expect(bad.status).toBe(400);
    }
  });

  test('one conversation: messages, tool activity, the card, the paused run and the input lock', async () => {
    const { conversation, action, run } = await seedInboundSms(h.core);
    const res = await h.call('GET', `/api/conversations/${conversation.id}`, { token: member });
    expect(res.status).toBe(200);
    const detail = conversationDetail.parse(await json(res));
    expect(detail.messages.map((m) => m.role)).toEqual(['inbound', 'tool', 'assistant']);
    expect(detail.messages[1]?.tool?.name).toBe('search_contacts');
    expect(detail.actions).toHaveLength(1);
    expect(detail.actions[0]).toMatchObject({ id: action.id, status: 'PENDING', tool: 'send_message' });
    expect(detail.actions[0]?.policy?.why.length).toBeGreaterThan(0);
    expect(detail.run).toMatchObject({
      id: run.id,
      status: 'awaiting_approval',
      awaitingActionId: action.id,
    });
    expect(detail.lock?.actionId).toBe(action.id);
    expect(detail.lock?.reason).toMatch(/Approve or deny/);
  });

  test('a missing conversation is a clear 404', async () => {
    const res = await h.call('GET', '/api/conversations/c_nope', { token: member });
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({
      error: { code: 'not_found', message: 'No conversation c_nope' },
    });
    expect((await h.call('POST', '/api/conversations/c_nope/read', { token: member })).status).toBe(404);
    expect((await h.call('GET', '/api/conversations/c_nope/audit', { token: member })).status).toBe(404);
  });

  test('a bad query is a 400 naming the field', async () => {
    const res = await h.call('GET', '/api/conversations?limit=0', { token: member });
    expect(res.status).toBe(400);
    expect(((await json(res)) as { error: { message: string } }).error.message).toMatch(/^limit:/);
  });
});

describe('approvals', () => {
  test('approve with an edited text: APPROVED with the edit and a new hash, resume enqueued, lock lifted', async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    await h.receiveEvents();
    const edited = { to: '+14155550111', text: 'Hi Maria, a technician will come tomorrow 9-11am.' };
    const res = await h.call('POST', `/api/conversations/${conversation.id}/actions/${action.id}/approve`, {
      token: member,
      body: { args: edited },
    });
    expect(res.status).toBe(200);
    const { action: approved } = decisionResponse.parse(await json(res));
    expect(approved).toMatchObject({ status: 'APPROVED', decidedBy: MEMBER, args: edited });
    expect(approved.edit?.from).toEqual(action.args);
    expect(approved.argsHash).not.toBe(action.argsHash);

    const events = await h.receiveEvents();
    expect(events.filter((e) => e.type === 'approval.decided').map((e) => e.payload)).toEqual([
      { conversationId: conversation.id, actionId: action.id, runId: action.runId },
    ]);
    const detail = conversationDetail.parse(
      await json(await h.call('GET', `/api/conversations/${conversation.id}`, { token: member })),
    );
    expect(detail.lock).toBeNull();
    expect(detail.conversation.pendingCount).toBe(0);

    const audit = auditResponse.parse(
      await json(await h.call('GET', `/api/conversations/${conversation.id}/audit`, { token: member })),
    );
    expect(audit.events.map((e) => e.type)).toEqual(['approval.requested', 'approval.approved']);
  });

  test('a second decision is a 409 carrying the card as it now stands', async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    const path = `/api/conversations/${conversation.id}/actions/${action.id}`;
    expect((await h.call('POST', `${path}/approve`, { token: member })).status).toBe(200);
    const again = await h.call('POST', `${path}/deny`, { token: admin, body: { reason: 'too late' } });
    expect(again.status).toBe(409);
    const conflict = decisionConflict.parse(await json(again));
    expect(conflict.error.details.action).toMatchObject({ status: 'APPROVED', decidedBy: MEMBER });
    expect(conflict.error.message).toMatch(/already decided \(approved\)/);
  });

  test('two people pressing at once: exactly one wins', async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    await h.receiveEvents();
    const path = `/api/conversations/${conversation.id}/actions/${action.id}/approve`;
    const results = await Promise.all([
      h.call('POST', path, { token: member }),
      h.call('POST', path, { token: admin }),
      h.call('POST', path, { token: member }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const decided = (await h.receiveEvents()).filter((e) => e.type === 'approval.decided');
    expect(decided).toHaveLength(1);
  });

  test('deny with a reason records it and resumes the run so the agent can follow up', async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    await h.receiveEvents();
    const res = await h.call('POST', `/api/conversations/${conversation.id}/actions/${action.id}/deny`, {
      token: admin,
      body: { reason: 'Maria already called us, no text needed' },
    });
    expect(res.status).toBe(200);
    const { action: denied } = decisionResponse.parse(await json(res));
    expect(denied).toMatchObject({ status: 'DENIED', denyReason: 'Maria already called us, no text needed' });
    expect((await h.receiveEvents()).map((e) => e.type)).toEqual(['approval.decided']);
  });

  test('bad bodies are 400s with a reason, and nothing is decided', async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    const path = `/api/conversations/${conversation.id}/actions/${action.id}`;
    const notJson = await h.call('POST', `${path}/approve`, { token: member, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(await json(notJson)).toMatchObject({ error: { message: 'The request body is not valid JSON.' } });
    const badArgs = await h.call('POST', `${path}/approve`, { token: member, body: { args: 'text' } });
    expect(badArgs.status).toBe(400);
    expect(((await json(badArgs)) as { error: { message: string } }).error.message).toMatch(/^args:/);
    const longReason = await h.call('POST', `${path}/deny`, {
      token: member,
      body: { reason: 'x'.repeat(1001) },
    });
    expect(longReason.status).toBe(400);
    expect((await h.core.actions.get(conversation.id, action.id))?.status).toBe('PENDING');
  });

  test("an edit that breaks the tool's own schema is refused with the field, and the card stays pending", async () => {
    const { conversation, action } = await seedInboundSms(h.core);
    const res = await h.call('POST', `/api/conversations/${conversation.id}/actions/${action.id}/approve`, {
      token: member,
      body: { args: { to: '+14155550111', text: '   ' } },
    });
    expect(res.status).toBe(400);
    expect(((await json(res)) as { error: { message: string } }).error.message).toMatch(
      /^The edited draft is not valid: text:/,
    );
    expect((await h.core.actions.get(conversation.id, action.id))?.status).toBe('PENDING');
  });

  test('deciding a card that does not exist is a 404', async () => {
    const { conversation } = await seedInboundSms(h.core);
    const res = await h.call('POST', `/api/conversations/${conversation.id}/actions/a_missing/approve`, {
      token: member,
    });
    expect(res.status).toBe(404);
  });
});

/** Reads a UI message stream response the way useChat does: chunk schema first, then message assembly. */
async function readChat(res: Response) {
  if (!res.body) throw new Error('no body');
  const chunks: UIMessageChunk[] = [];
  const parsed = parseJsonEventStream({ stream: res.body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        chunks.push(result.value as UIMessageChunk);
        controller.enqueue(result.value as UIMessageChunk);
      },
    }),
  );
  let message: ChatUIMessage | undefined;
  for await (const m of readUIMessageStream<ChatUIMessage>({ stream: parsed })) message = m;
  return { chunks, message };
}

/** Stands in for the agent worker on one chat turn: what it persists is what the stream must relay. */
async function answerNextChatTurn(draft: { to: string; text: string }) {
  for (let i = 0; i < 100; i++) {
    const event = (await h.receiveEvents()).find((e) => e.type === 'chat.message');
    if (event && event.type === 'chat.message') {
      const { conversationId } = event.payload;
      const at = () => new Date().toISOString();
      const run: Run = {
        id: newId('r_'),
        conversationId,
        status: 'running',
        mode: 'rules',
        trigger: { type: 'chat.message', key: event.key, eventIds: [event.id] },
        iteration: 1,
        nextSeq: 0,
        usage: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0,
          modelCalls: 0,
        },
        createdAt: at(),
        updatedAt: at(),
      };
      await h.core.runs.create(run);
      await h.core.conversations.appendMessage({
        id: newId('m_'),
        conversationId,
        role: 'tool',
        text: 'search_contacts',
        createdAt: at(),
        runId: run.id,
        author: { kind: 'assistant', name: 'Switchboard' },
        tool: { name: 'search_contacts', args: { query: 'Maria' }, result: { count: 1 } },
      });
      await h.core.conversations.appendMessage({
        id: newId('m_'),
        conversationId,
        role: 'assistant',
        text: 'I drafted a text to Maria Lopez. Approve it below.',
        createdAt: at(),
        runId: run.id,
        author: { kind: 'assistant', name: 'Switchboard' },
      });
      const action = await seedPendingAction(h.core, {
        conversationId,
        runId: run.id,
        tool: 'send_message',
        args: draft,
        summary: `Text Maria Lopez: “${draft.text}”`,
      });
      await h.core.runs.update(conversationId, run.id, {
        status: 'awaiting_approval',
        awaitingActionId: action.id,
      });
      return { conversationId, run, action };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no chat.message event arrived');
}

describe('chat', () => {
  test('a new chat streams the run: text, tool activity, the approval card, then the pause', async () => {
    const draft = { to: '+14155550111', text: 'The plumber comes at 3.' };
    const [res, turn] = await Promise.all([
      h.call('POST', '/api/chat', {
        token: member,
        body: { text: 'Text Maria that the plumber comes at 3' },
      }),
      answerNextChatTurn(draft),
    ]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const { chunks, message } = await readChat(res);
    expect(chunks[0]?.type).toBe('start');
    expect(chunks.at(-1)?.type).toBe('finish');

    const parts = message?.parts ?? [];
    const run = parts.find((p) => p.type === 'data-run');
    expect(run?.type === 'data-run' && run.data).toEqual({
      conversationId: turn.conversationId,
      runId: turn.run.id,
      status: 'awaiting_approval',
    });
    const text = parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''));
    expect(text).toEqual(['I drafted a text to Maria Lopez. Approve it below.']);
    const tool = parts.find((p) => p.type === 'dynamic-tool');
    expect(tool).toMatchObject({
      toolName: 'search_contacts',
      state: 'output-available',
      output: { count: 1 },
    });
    const card = parts.find((p) => p.type === 'data-approval');
    expect(card?.type === 'data-approval' && card.data).toMatchObject({
      id: turn.action.id,
      args: draft,
      status: 'PENDING',
    });

    // The person's message is stored with the new conversation, and the conversation is now locked.
    const detail = conversationDetail.parse(
      await json(await h.call('GET', `/api/conversations/${turn.conversationId}`, { token: member })),
    );
    expect(detail.messages[0]).toMatchObject({
      role: 'user',
      text: 'Text Maria that the plumber comes at 3',
    });
    expect(detail.conversation.source).toBe('chat');
    expect(detail.lock?.actionId).toBe(turn.action.id);
  });

  test('the input lock holds on the server: a chat turn while a card waits is a 409 with the reason', async () => {
    const { conversation } = await seedInboundSms(h.core);
    const res = await h.call('POST', '/api/chat', {
      token: member,
      body: { conversationId: conversation.id, text: 'never mind' },
    });
    expect(res.status).toBe(409);
    expect(((await json(res)) as { error: { message: string } }).error.message).toMatch(
      /Waiting for a decision/,
    );
  });

  test('when no run answers in time, the stream ends with a timeout rather than hanging', async () => {
    const started = Date.now();
    const res = await h.call('POST', '/api/chat', { token: member, body: { text: 'anyone there?' } });
    const { message } = await readChat(res);
    const run = message?.parts.find((p) => p.type === 'data-run');
    expect(run?.type === 'data-run' && run.data.status).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
    await h.receiveEvents();
  });

  test('an empty message is a 400 that says what to do', async () => {
    const res = await h.call('POST', '/api/chat', { token: member, body: { text: '   ' } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: { message: 'text: type a message first' } });
  });
});

describe('admin instructions', () => {
  test('admins read and update the system instructions; every version is kept', async () => {
    const empty = instructionsResponse.parse(
      await json(await h.call('GET', '/api/admin/instructions', { token: admin })),
    );
    expect(empty).toEqual({ current: null, history: [] });
    await h.call('PUT', '/api/admin/instructions', { token: admin, body: { text: 'Be brief.' } });
    await new Promise((r) => setTimeout(r, 5));
    const res = await h.call('PUT', '/api/admin/instructions', {
      token: admin,
      body: { text: 'Be brief. Sign texts as Oak Properties.' },
    });
    const updated = instructionsResponse.parse(await json(res));
    expect(updated.current).toMatchObject({
      text: 'Be brief. Sign texts as Oak Properties.',
      updatedBy: ADMIN,
    });
    expect(updated.history.map((v) => v.text)).toEqual([
      'Be brief. Sign texts as Oak Properties.',
      'Be brief.',
    ]);
  });

  test('empty instructions are refused with a reason', async () => {
    const res = await h.call('PUT', '/api/admin/instructions', { token: admin, body: { text: ' ' } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: { message: 'text: instructions cannot be empty' } });
  });
});

describe('dev sign-in on a local stack', () => {
  let local: ApiHarness;
  beforeAll(async () => {
    local = await startApiHarness({ stage: 'local' });
  }, 60_000);
  afterAll(async () => {
    await local?.stop();
  });

  test('lists the demo team and mints tokens that pass the real verifier', async () => {
    const team = devTeamResponse.parse(await json(await local.call('GET', '/api/dev/team')));
    expect(team.members.map((m) => m.email)).toContain(ADMIN);
    expect(team.members.find((m) => m.email === ADMIN)?.isAdmin).toBe(true);

    const session = devSessionResponse.parse(
      await json(await local.call('POST', '/api/dev/session', { body: { email: MEMBER } })),
    );
    const me = meResponse.parse(await json(await local.call('GET', '/api/me', { token: session.token })));
    expect(me.user).toMatchObject({ email: MEMBER, name: 'Sam Chen', isAdmin: false });
  });

  test('a minted token for another domain is still refused when used', async () => {
    const session = devSessionResponse.parse(
      await json(await local.call('POST', '/api/dev/session', { body: { email: 'eve@elsewhere.example' } })),
    );
    const res = await local.call('GET', '/api/conversations', { token: session.token });
    expect(res.status).toBe(403);
  });

  test('a bad email is a 400', async () => {
    const res = await local.call('POST', '/api/dev/session', { body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
  });
});
