import { afterAll, beforeAll, expect, test } from 'vitest';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { savePersonalPreferences } from '../../shared/src/use-cases/preferences';
import { createWorld, MARIA, SAM, type Servers, smsEvent, startServers } from '../agent/harness';

/**
 * The signature preference (issue 20, decided with cards #18): a draft Sam asks for in chat, and a draft in a
 * conversation assigned to Sam, end with Sam's signature from Settings — once, and the card says so. The
 * precedence over a learned sign-off lesson is in shared/src/domain/lessons.test.ts (cards), a model draft’s closing in draft-style-signature.test.ts.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const SIGN = '— Sam, Oak Properties';

test('a draft asked for in chat, and one in a conversation assigned to Sam, carry his signature once', async () => {
  const world = await createWorld(servers);
  try {
    await savePersonalPreferences(
      { ...world.core, clock: servers.clock },
      { userId: SAM.id, name: 'Sam Chen', patch: { signature: SIGN }, by: SAM.email },
    );
    const { conversation } = await postChatMessage(
      { ...world.core, clock: servers.clock },
      {
        text: 'text Maria that the plumber comes tomorrow at 9',
        user: { id: SAM.id, email: SAM.email, name: 'Sam Chen' },
      },
    );
    await world.work();
    const [card] = await world.core.actions.listByConversation(conversation.id);
    expect(card?.tool).toBe('send_message');
    expect(card?.args.text).toBe(`Hi Maria, the plumber comes tomorrow at 9.\n\n${SIGN}`);
    expect(card?.lessons).toEqual(['Signed with Sam Chen’s signature (Settings)']);

    // Maria's own thread, assigned to Sam: the acknowledgement the triage drafts is signed by him.
    await world.deliver(smsEvent(MARIA, 'Is the plumber still coming?', servers.clock()));
    const maria = await world.conversationFor(`sms:${MARIA}`);
    await world.core.conversations.setThreadFields(maria?.id as string, { assignee: SAM.id });
    servers.clock.advance(5 * 60_000);
    await world.deliver(
      smsEvent(MARIA, 'The heater is broken again, it is freezing in here', servers.clock()),
    );
    const drafts = (await world.actionsFor(`sms:${MARIA}`)).filter(
      (a) => a.tool === 'send_message' && a.status === 'PENDING',
    );
    const last = drafts.at(-1)?.args.text as string;
    expect(last.endsWith(`\n\n${SIGN}`)).toBe(true);
    expect(last.split(SIGN)).toHaveLength(2);
  } finally {
    await world.stop();
  }
}, 60_000);
