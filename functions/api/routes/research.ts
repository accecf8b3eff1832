import type { Hono } from 'hono';
import {
  editPlanRequest,
  replanRequest,
  researchView,
  startResearchRequest,
} from '../../../shared/src/contracts/research';
import { NotFoundError } from '../../../shared/src/errors';
import { newId } from '../../../shared/src/ids';
import {
  approveResearchPlan,
  cancelResearch,
  editResearchPlan,
  replanResearch,
} from '../../../shared/src/use-cases/review-research';
import { startResearch } from '../../../shared/src/use-cases/start-research';
import type { AppEnv } from '../app';
import { currentUser, readJson, reply } from '../http';

const approveRequest = editPlanRequest.partial();

/**
 * Research tasks (issue 21): start one (in a conversation, or a new one), read its plan and live tree, and
 * review a large plan before it runs — edit, approve as edited, ask the planner to re-plan — or cancel.
 */
export function registerResearchRoutes(app: Hono<AppEnv>) {
  app.post('/api/research', async (c) => {
    const core = c.get('core');
    const body = await readJson(c, startResearchRequest);
    const user = currentUser(c);
    if (body.conversationId && !(await core.conversations.get(body.conversationId)))
      throw new NotFoundError(`No conversation ${body.conversationId}`);
    const conversationId = body.conversationId ?? (await newConversation(c, body.goal, user.id));
    const task = await startResearch(core.research, {
      goal: body.goal,
      conversationId,
      user: { id: user.id, name: user.name ?? user.email },
    });
    return reply(c, researchView, { task, nodes: [] }, 201);
  });

  app.get('/api/research/:id', async (c) => {
    const graph = await c.get('core').research.research.load(c.req.param('id'));
    if (!graph) throw new NotFoundError(`No research task ${c.req.param('id')}`);
    return reply(c, researchView, graph);
  });

  app.put('/api/research/:id/plan', async (c) => {
    const body = await readJson(c, editPlanRequest);
    return reply(
      c,
      researchView,
      await found(editResearchPlan(c.get('core').research, c.req.param('id'), body.plan)),
    );
  });

  app.post('/api/research/:id/approve', async (c) => {
    const body = await readJson(c, approveRequest);
    const user = currentUser(c);
    const graph = await approveResearchPlan(
      c.get('core').research,
      c.req.param('id'),
      { id: user.id, name: user.name ?? user.email },
      body.plan,
    );
    return reply(c, researchView, await found(Promise.resolve(graph)));
  });

  app.post('/api/research/:id/replan', async (c) => {
    const body = await readJson(c, replanRequest);
    return reply(
      c,
      researchView,
      await found(replanResearch(c.get('core').research, c.req.param('id'), body.plan, body.note)),
    );
  });

  app.post('/api/research/:id/cancel', async (c) => {
    const user = currentUser(c);
    const graph = await cancelResearch(c.get('core').research, c.req.param('id'), {
      id: user.id,
      name: user.name ?? user.email,
    });
    return reply(c, researchView, await found(Promise.resolve(graph)));
  });
}

async function found<T>(p: Promise<T | undefined>): Promise<T> {
  const v = await p;
  if (!v) throw new NotFoundError('No such research task');
  return v;
}

/** A task started from the API without a conversation gets its own, where its plan and report appear. */
async function newConversation(
  c: { get(k: 'core'): AppEnv['Variables']['core'] },
  goal: string,
  userId: string,
) {
  const core = c.get('core');
  const at = core.clock().toISOString();
  const id = newId('c_');
  await core.conversations.create({
    id,
    title: `Research: ${goal}`.slice(0, 80),
    source: 'chat',
    preview: goal.slice(0, 160),
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: userId,
    pendingCount: 0,
    readBy: {},
  });
  return id;
}
