import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import { DEFAULT_ANTHROPIC_HELPER_MODEL } from '../../shared/src/config';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { redraftCard } from '../../shared/src/use-cases/redraft-card';
import { createWorld, MARIA, SAM, type Servers, SHARED_LINE, startServers, type World } from './harness';

/**
 * Cards #18 in Claude mode, through the real Anthropic SDK against the emulator: "Redraft…" and a deny with a
 * reason each give the model its earlier draft and what the person asked (`<team_redraft>`), and the model's
 * new draft becomes the one pending card (the old one SUPERSEDED / DENIED); with the model reviewers switched
 * on, a drafted write is reviewed by the helper model (forced through `submit_review`) before the card, and
 * the executed write after it, with the rule reviewer as the floor.
 */
let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
});
afterAll(async () => {
  await servers?.stop();
});
afterEach(async () => {
  await world?.stop();
});

const emu = () => servers.anthropic!;
const SAM_USER = { id: SAM.id, email: SAM.email, name: 'Sam Chen' };
const FIRST = 'Hi Maria, the plumber comes at 3pm today.';
/** Every text the model was shown in one request (system prompt and messages). */
const shown = (req: MessagesRequest) => JSON.stringify([req.system, req.messages]);

async function draftToMaria(): Promise<PendingAction> {
  emu().script([
    turn.toolUse('search_contacts', { query: 'Maria' }, { text: 'Let me find Maria.' }),
    turn.toolUse('send_message', { to: MARIA, text: FIRST }),
  ]);
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text: 'Text Maria that the plumber comes at 3pm today', user: SAM_USER },
  );
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  expect(card).toMatchObject({ status: 'PENDING', proposedBy: 'model', args: { text: FIRST } });
  return card!;
}

async function cardsOf(convId: string) {
  const all = await world.core.actions.listByConversation(convId);
  return { all, pending: all.filter((a) => a.status === 'PENDING') };
}

describe('redrafts in Claude mode', () => {
  beforeEach(async () => {
    emu().reset();
    world = await createWorld(servers, { claude: true });
  });

  test('Redraft… “say Saturday 11am”: the model sees its draft and the ask; its new draft is the one card', async () => {
    const first = await draftToMaria();
    let asked = '';
    const SECOND = 'Hi Maria, the plumber comes on Saturday at 11am.';
    emu().script([
      (req) => {
        asked = shown(req);
        return turn.toolUse('send_message', { to: MARIA, text: SECOND });
      },
      turn.text('Done — Maria has the Saturday time.'),
    ]);
    await redraftCard(
      { ...world.core, clock: servers.clock },
      {
        conversationId: first.conversationId,
        actionId: first.id,
        kind: 'redraft',
        instruction: 'say Saturday 11am',
        user: SAM_USER,
      },
    );
    await world.work();

    expect(asked).toContain('<team_redraft>');
    expect(asked).toContain('say Saturday 11am');
    expect(asked).toContain(FIRST);
    const { all, pending } = await cardsOf(first.conversationId);
    expect(all.find((a) => a.id === first.id)).toMatchObject({ status: 'SUPERSEDED' });
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      proposedBy: 'model',
      args: { to: MARIA, text: SECOND },
      redraft: { fromActionId: first.id, kind: 'redraft', instruction: 'say Saturday 11am' },
    });
    expect(all.find((a) => a.id === first.id)?.supersededBy).toBe(pending[0]?.id);

    await world.decide(pending[0]!, 'approve');
    await world.work();
    expect(world.sentTo(MARIA)).toEqual([{ text: SECOND, from: SHARED_LINE }]);
  });

  test('deny with a reason that asks for a change: the model redrafts with the reason; nothing of the first is sent', async () => {
    const first = await draftToMaria();
    let asked = '';
    const SHORTER = 'Plumber at 3pm today.';
    emu().script([
      (req) => {
        asked = shown(req);
        return turn.toolUse('send_message', { to: MARIA, text: SHORTER });
      },
    ]);
    await world.decide(first, 'deny', { reason: 'shorter please', user: SAM_USER });
    await world.work();

    expect(asked).toContain('denied it with this reason: “shorter please”');
    const { all, pending } = await cardsOf(first.conversationId);
    expect(all.find((a) => a.id === first.id)).toMatchObject({
      status: 'DENIED',
      denyReason: 'shorter please',
    });
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      args: { text: SHORTER },
      redraft: { fromActionId: first.id, kind: 'deny', instruction: 'shorter please' },
    });
    expect(world.sentTo(MARIA)).toEqual([]);
  });
});

describe('model reviewers switched on', () => {
  beforeEach(async () => {
    emu().reset();
    world = await createWorld(servers, { claude: true, env: { MODEL_REVIEWERS: 'true' } });
  });

  test('the plan is reviewed by the helper model before the card, the execution after the send', async () => {
    const reviews: MessagesRequest[] = [];
    const review = (scores: Record<string, unknown>) => (req: MessagesRequest) => {
      reviews.push(req);
      return turn.toolUse('submit_review', scores);
    };
    emu().script([
      turn.toolUse('search_contacts', { query: 'Maria' }),
      turn.toolUse('send_message', { to: MARIA, text: FIRST }),
      review({
        relevance: 9,
        completeness: 6,
        safety: 10,
        quality: 9,
        issues: ['Does not say who the plumber is.'],
      }),
    ]);
    const { conversation } = await postChatMessage(
      { ...world.core, clock: servers.clock },
      { text: 'Text Maria that the plumber comes at 3pm today', user: SAM_USER },
    );
    await world.work();
    const [card] = await world.core.actions.listByConversation(conversation.id);
    expect(card?.status).toBe('PENDING');
    expect(card?.review.plan).toMatchObject({
      reviewer: 'model',
      completeness: 6,
      issues: expect.arrayContaining(['Does not say who the plumber is.']),
    });
    // The review call was forced through the one tool, on the helper tier, and saw the draft as data.
    expect(reviews).toHaveLength(1);
    expect(reviews[0]?.tool_choice).toMatchObject({ type: 'tool', name: 'submit_review' });
    expect(reviews[0]?.model).toBe(DEFAULT_ANTHROPIC_HELPER_MODEL);
    expect(JSON.stringify(reviews[0]?.messages)).toContain(FIRST);

    emu().script([
      review({ relevance: 10, completeness: 9, safety: 10, quality: 9, issues: [] }),
      turn.text('Done — I texted Maria.'),
    ]);
    await world.decide(card!, 'approve');
    await world.work();
    const done = await world.core.actions.get(conversation.id, card!.id);
    expect(done?.status).toBe('EXECUTED');
    expect(done?.review.execution).toMatchObject({ reviewer: 'model', relevance: 10 });
    expect(reviews).toHaveLength(2);
    expect(world.sentTo(MARIA)).toEqual([{ text: FIRST, from: SHARED_LINE }]);
  });

  test('a review out of shape leaves the rule review (the floor), and the card is still made', async () => {
    emu().script([
      turn.toolUse('search_contacts', { query: 'Maria' }),
      turn.toolUse('send_message', { to: MARIA, text: FIRST }),
      turn.toolUse('submit_review', { relevance: 'great' }),
    ]);
    const { conversation } = await postChatMessage(
      { ...world.core, clock: servers.clock },
      { text: 'Text Maria that the plumber comes at 3pm today', user: SAM_USER },
    );
    await world.work();
    const [card] = await world.core.actions.listByConversation(conversation.id);
    expect(card).toMatchObject({ status: 'PENDING', review: { plan: { reviewer: 'rules' } } });
  });
});
