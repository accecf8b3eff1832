import type { Hono } from 'hono';
import {
  answerRequest,
  approveRequest,
  auditResponse,
  conversationDetail,
  conversationStatusResponse,
  decisionResponse,
  denyRequest,
  followUpResponse,
  listConversationsQuery,
  listConversationsResponse,
  markReadRequest,
  markReadResponse,
  redraftRequest,
  searchQuery,
  searchResponse,
  tokenDecisionRequest,
} from '../../../shared/src/contracts/api';
import { leadStateRequest, leadStateResponse } from '../../../shared/src/contracts/lead';
import { actionTokenKey } from '../../../shared/src/domain/action-token';
import { claimCard, releaseCard } from '../../../shared/src/use-cases/claim-card';
import { decideApproval } from '../../../shared/src/use-cases/decide-approval';
import { decideByToken } from '../../../shared/src/use-cases/decide-by-token';
import { getAudit } from '../../../shared/src/use-cases/get-audit';
import { getConversation } from '../../../shared/src/use-cases/get-conversation';
import { listConversations } from '../../../shared/src/use-cases/list-conversations';
import { markConversationRead } from '../../../shared/src/use-cases/mark-conversation-read';
import { markLead } from '../../../shared/src/use-cases/mark-lead';
import { redraftCard } from '../../../shared/src/use-cases/redraft-card';
import {
  conversationStatusRequest,
  setConversationStatus,
} from '../../../shared/src/use-cases/set-conversation-status';
import type { AppEnv } from '../app';
import { actorOf, currentUser, readJson, readQuery, reply } from '../http';
import { corpusFor } from '../search-corpus';

/** The team's shared conversations and the decisions on their cards. */
export function registerConversationRoutes(app: Hono<AppEnv>) {
  app.get('/api/conversations', async (c) => {
    const { limit, filter, cursor } = readQuery(c, listConversationsQuery);
    const page = await listConversations(c.get('core'), {
      userId: currentUser(c).id,
      limit,
      filter,
      ...(cursor ? { cursor } : {}),
    });
    return reply(c, listConversationsResponse, page);
  });

  app.get('/api/search', async (c) => {
    const { q } = readQuery(c, searchQuery);
    const { searchInbox } = await import('../../../shared/src/use-cases/search-inbox');
    const result = await searchInbox(
      { corpus: await corpusFor(c.get('core')) },
      { query: q, userId: currentUser(c).id },
    );
    return reply(c, searchResponse, result);
  });

  app.get('/api/conversations/:id', async (c) => {
    const detail = await getConversation(c.get('core'), {
      conversationId: c.req.param('id'),
      userId: currentUser(c).id,
    });
    return reply(c, conversationDetail, detail);
  });

  app.post('/api/conversations/:id/read', async (c) => {
    const { through } = await readJson(c, markReadRequest);
    const { readAt } = await markConversationRead(c.get('core'), {
      conversationId: c.req.param('id'),
      userId: currentUser(c).id,
      ...(through ? { through } : {}),
    });
    return reply(c, markReadResponse, { ok: true, readAt });
  });

  app.post('/api/conversations/:id/status', async (c) => {
    const { status } = await readJson(c, conversationStatusRequest);
    const out = await setConversationStatus(c.get('core'), {
      conversationId: c.req.param('id'),
      status,
      user: actorOf(c),
    });
    return reply(c, conversationStatusResponse, out);
  });

  // Where a lead stands, said by a person (follow #20): "showing booked" and "not a fit" stop the drafts.
  app.post('/api/conversations/:id/lead', async (c) => {
    const { state } = await readJson(c, leadStateRequest);
    const out = await markLead(c.get('core'), {
      conversationId: c.req.param('id'),
      state,
      user: actorOf(c),
    });
    return reply(c, leadStateResponse, out);
  });

  app.get('/api/conversations/:id/audit', async (c) => {
    const events = await getAudit(c.get('core'), { conversationId: c.req.param('id') });
    return reply(c, auditResponse, { events });
  });

  app.post('/api/conversations/:cid/actions/:aid/approve', async (c) => {
    const body = await readJson(c, approveRequest);
    const user = currentUser(c);
    const action = await decideApproval(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      decision: 'approve',
      ...(body.args ? { editedArgs: body.args } : {}),
      user: {
        id: user.id,
        email: user.email,
        isAdmin: user.isAdmin,
        ...(user.name ? { name: user.name } : {}),
      },
    });
    return reply(c, decisionResponse, { action });
  });

  app.post('/api/conversations/:cid/followups/:fid/cancel', async (c) => {
    const user = actorOf(c);
    const core = c.get('core');
    // Loaded on the first cancel: it brings the follow-up tool and luxon, which no other route here needs.
    const { cancelFollowUp } = await import('../../../shared/src/use-cases/cancel-followup');
    const followup = await cancelFollowUp(
      { ...core, ...(core.cardTimers.timers ? { timers: core.cardTimers.timers } : {}) },
      {
        conversationId: c.req.param('cid'),
        followupId: c.req.param('fid'),
        user,
      },
    );
    return reply(c, followUpResponse, { followup });
  });

  app.post('/api/conversations/:cid/actions/:aid/deny', async (c) => {
    const body = await readJson(c, denyRequest);
    const user = actorOf(c);
    const action = await decideApproval(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      decision: 'deny',
      ...(body.reason ? { reason: body.reason } : {}),
      ...(body.redraft !== undefined ? { redraft: body.redraft } : {}),
      user,
    });
    return reply(c, decisionResponse, { action });
  });

  // Approve / Deny pressed on a notification (cards #18): no session — the push's signed action token for
  // this card and person instead (PUBLIC_ROUTES lists it; docs/ARCHITECTURE.md §Safety says why).
  app.post('/api/conversations/:cid/actions/:aid/by-token', async (c) => {
    const body = await readJson(c, tokenDecisionRequest);
    const core = c.get('core');
    const key = core.config.VAPID_PRIVATE_KEY ? actionTokenKey(core.config.VAPID_PRIVATE_KEY) : undefined;
    const action = await decideByToken(
      { ...core.approvals, ...(key ? { actionTokenKey: key } : {}) },
      {
        conversationId: c.req.param('cid'),
        actionId: c.req.param('aid'),
        token: body.token,
        decision: body.decision,
      },
    );
    return reply(c, decisionResponse, { action });
  });

  // "Redraft…": the card is withdrawn and the assistant drafts again with the instruction (cards #18).
  app.post('/api/conversations/:cid/actions/:aid/redraft', async (c) => {
    const body = await readJson(c, redraftRequest);
    const action = await redraftCard(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      kind: 'redraft',
      instruction: body.instruction,
      user: actorOf(c),
    });
    return reply(c, decisionResponse, { action });
  });

  // "I'm on it": the team sees who took the card; anyone can still decide it (cards #18).
  app.post('/api/conversations/:cid/actions/:aid/claim', async (c) => {
    const action = await claimCard(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      user: actorOf(c),
    });
    return reply(c, decisionResponse, { action });
  });

  // "Release": the one who said "I'm on it" takes it back (cards #18).
  app.delete('/api/conversations/:cid/actions/:aid/claim', async (c) => {
    const action = await releaseCard(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      user: actorOf(c),
    });
    return reply(c, decisionResponse, { action });
  });

  // One-tap answers to the card's open questions: recorded as facts by the worker, then a new draft.
  app.post('/api/conversations/:cid/actions/:aid/answer', async (c) => {
    const body = await readJson(c, answerRequest);
    const action = await redraftCard(c.get('core').approvals, {
      conversationId: c.req.param('cid'),
      actionId: c.req.param('aid'),
      kind: 'answer',
      answers: body.answers,
      user: actorOf(c),
    });
    return reply(c, decisionResponse, { action });
  });
}
