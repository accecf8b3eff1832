import type { Hono } from 'hono';
import { DynamoFactStore } from '../../../shared/src/adapters/dynamo/fact-store';
import type { Core } from '../../../shared/src/composition/core';
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
  markReadResponse,
  redraftRequest,
  searchQuery,
  searchResponse,
  tokenDecisionRequest,
} from '../../../shared/src/contracts/api';
import {
  deleteConversationRequest,
  deleteConversationResponse,
  deletionPreview,
  deletionsResponse,
} from '../../../shared/src/contracts/deletion';
import { actionTokenKey } from '../../../shared/src/domain/action-token';
import type { ConversationCorpus } from '../../../shared/src/tools/db-search';
import { cancelFollowUp } from '../../../shared/src/use-cases/cancel-followup';
import { claimCard, releaseCard } from '../../../shared/src/use-cases/claim-card';
import { decideApproval } from '../../../shared/src/use-cases/decide-approval';
import { decideByToken } from '../../../shared/src/use-cases/decide-by-token';
import { deleteConversation, previewDeletion } from '../../../shared/src/use-cases/delete-conversation';
import { exportConversation } from '../../../shared/src/use-cases/export-conversation';
import { getAudit } from '../../../shared/src/use-cases/get-audit';
import { getConversation } from '../../../shared/src/use-cases/get-conversation';
import { listConversations } from '../../../shared/src/use-cases/list-conversations';
import { markConversationRead } from '../../../shared/src/use-cases/mark-conversation-read';
import { redraftCard } from '../../../shared/src/use-cases/redraft-card';
import {
  conversationStatusRequest,
  setConversationStatus,
} from '../../../shared/src/use-cases/set-conversation-status';
import type { AppEnv } from '../app';
import { actorOf, currentUser, readJson, readQuery, reply } from '../http';

const corpora = new WeakMap<Core, Promise<ConversationCorpus>>();
/**
 * One search corpus per composed core (per cold start): warm calls only re-read what changed. Built on the
 * first search or delete, with the tool deps module (the search index, fuzzy matching and the tools' schemas:
 * a third of the zod schemas the api would otherwise construct at cold start, issue 16).
 */
function corpusFor(core: Core): Promise<ConversationCorpus> {
  let corpus = corpora.get(core);
  if (!corpus) {
    corpus = import('../../../shared/src/composition/tool-deps').then(
      (m) => m.buildDbSearchToolDeps(core.config, core.table).corpus,
    );
    corpora.set(core, corpus);
  }
  return corpus;
}

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
    const { readAt } = await markConversationRead(c.get('core'), {
      conversationId: c.req.param('id'),
      userId: currentUser(c).id,
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

  // Privacy requests and the team's own records: one file, the same one `npm run ops conversation:export` writes.
  app.get('/api/admin/conversations/:id/export', async (c) => {
    const core = c.get('core');
    const file = await exportConversation(
      { ...core, facts: new DynamoFactStore(core.table) },
      { conversationId: c.req.param('id'), exportedBy: currentUser(c).email },
    );
    c.header('content-disposition', `attachment; filename="conversation-${file.conversation.id}.json"`);
    return c.json(file);
  });

  // Admin delete (issue 19): what it would erase, the erase itself (the id typed again), and the tombstones.
  app.get('/api/admin/conversations/:id/deletion', async (c) => {
    return reply(c, deletionPreview, await previewDeletion(c.get('core'), c.req.param('id')));
  });

  app.post('/api/admin/conversations/:id/delete', async (c) => {
    const { confirm } = await readJson(c, deleteConversationRequest);
    const core = c.get('core');
    const tombstone = await deleteConversation(
      { ...core, search: await corpusFor(core) },
      { conversationId: c.req.param('id'), confirm, deletedBy: currentUser(c).email },
    );
    return reply(c, deleteConversationResponse, { tombstone });
  });

  app.get('/api/admin/deletions', async (c) => {
    const tombstones = await c.get('core').eraser.listTombstones({ limit: 50 });
    return reply(c, deletionsResponse, { tombstones });
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
