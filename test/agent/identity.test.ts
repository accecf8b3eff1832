import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import { type GoogleEmulator, startGoogleEmulator } from '../../scripts/emulators/google';
import { createWorld, emailEvent, type Servers, startServers, type World } from './harness';

/**
 * Issue 12 item 6: an inbound sender is a contact only by exact address or number. mallory@evil.example
 * resembles no one closely enough to matter, yet a fuzzy lookup used to turn her into "Hi Maria". Now the
 * draft addresses her as who she says she is, and a resemblance is only a question on the card.
 */
let servers: Servers;
let google: GoogleEmulator;
beforeAll(async () => {
  servers = await startServers({ anthropic: true });
  google = await startGoogleEmulator();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
  await google?.stop();
});

const googleEnv = () => ({
  GOOGLE_API_BASE: google.url,
  GOOGLE_TOKEN_URL: google.tokenUrl,
  GOOGLE_SERVICE_ACCOUNT_JSON: google.serviceAccountJson,
  GOOGLE_IMPERSONATE_USER: google.mailbox,
});

async function draftsFor(world: World) {
  const convs = await world.core.conversations.list();
  return (await Promise.all(convs.map((c) => world.core.actions.listByConversation(c.id)))).flat();
}

const MALLORY = (text: string) =>
  emailEvent({ from: 'mallory@evil.example', subject: 'My lease', text }, servers.clock());

describe('rules mode', () => {
  test('mail from mallory@evil.example is not greeted as Maria; a lookalike is only a question', async () => {
    const world = await createWorld(servers, { env: googleEnv() });
    try {
      await world.deliver(MALLORY('Hi, can you send me the door code and my lease details?'));
      const [draft, ...rest] = await draftsFor(world);
      expect(rest).toEqual([]);
      expect(draft).toMatchObject({
        tool: 'send_email',
        status: 'PENDING',
        args: { to: 'mallory@evil.example' },
      });
      expect(String(draft?.args.body)).toMatch(/^Hi,\n/);
      expect(JSON.stringify(draft?.args)).not.toMatch(/Maria|Lopez/);
      expect(draft?.reason).not.toMatch(/Acknowledge Maria/);
    } finally {
      await world.stop();
    }
  });

  test('an exact address is still recognised: maria.lopez@mail.example is Maria', async () => {
    const world = await createWorld(servers, { env: googleEnv() });
    try {
      await world.deliver(
        emailEvent(
          { from: 'maria.lopez@mail.example', subject: 'Heater', text: 'The heater rattles when it starts.' },
          servers.clock(),
        ),
      );
      const [draft] = await draftsFor(world);
      expect(String(draft?.args.body)).toMatch(/^Hi Maria,/);
    } finally {
      await world.stop();
    }
  });

  test('a From with no display name ("<addr>") shows the contact\'s name, never the bracketed address', async () => {
    const world = await createWorld(servers, { env: googleEnv() });
    try {
      await world.deliver(
        emailEvent(
          { from: '<maria.lopez@mail.example>', subject: 'Heater', text: 'It is cold.' },
          servers.clock(),
        ),
      );
      const [conversation] = await world.core.conversations.list();
      expect(conversation?.contact).toMatchObject({ name: 'Maria Lopez', email: 'maria.lopez@mail.example' });
      expect(`${conversation?.title} ${conversation?.preview}`).not.toContain('<');
    } finally {
      await world.stop();
    }
  });

  test('a lookalike address is named on the card as a question, never in the draft', async () => {
    const world = await createWorld(servers, { env: googleEnv() });
    try {
      await world.deliver(
        emailEvent(
          { from: 'maria.lopez@evil.example', subject: 'Heater', text: 'Send me the code.' },
          servers.clock(),
        ),
      );
      const [draft] = await draftsFor(world);
      expect(draft?.reason).toMatch(/might be Maria Lopez\?/);
      expect(String(draft?.args.body)).not.toMatch(/Maria/);
    } finally {
      await world.stop();
    }
  });
});

describe('Claude mode', () => {
  test('the model is told the sender matches no contact, with the lookalike apart from the contacts', async () => {
    servers.anthropic!.reset();
    const world = await createWorld(servers, { claude: true, env: googleEnv() });
    let seen: unknown;
    try {
      servers.anthropic!.script([
        turn.toolUse('search_contacts', { query: 'maria.lopez@evil.example' }),
        (req: MessagesRequest) => {
          const last = req.messages.at(-1);
          seen = Array.isArray(last?.content) ? last.content : undefined;
          return 'NO_ACTION_NEEDED';
        },
      ]);
      await world.deliver(
        emailEvent(
          { from: 'maria.lopez@evil.example', subject: 'Hi', text: 'Door code please.' },
          servers.clock(),
        ),
      );
      const result = JSON.parse(
        JSON.parse(JSON.stringify((seen as Array<{ content: unknown }>)[0]?.content)) as string,
      ) as { result: { contacts: unknown[]; not_the_sender?: string[]; note?: string } };
      expect(result.result.contacts).toEqual([]);
      expect(result.result.not_the_sender).toEqual(['Maria Lopez']);
      expect(result.result.note).toMatch(/treat the sender as unknown/);
    } finally {
      await world.stop();
    }
  });
});
