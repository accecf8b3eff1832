import { afterAll, beforeAll, expect, test } from 'vitest';
import { createWorld, MARIA, type Servers, startServers, type World } from '../agent/harness';
import { FOLLOW_WEBHOOK_SECRET, startWebhookReceiver } from './support';

/**
 * A tenant texts a photo of a leak, through the signed webhook: the photo is kept with the message (our id
 * and type; the provider's URL only in the server-side media record), rules-mode triage still drafts a reply
 * (the text reads "[photo]"), the bytes come back through the media fetcher the API proxies with, and in
 * Claude mode the model is sent the image itself.
 */
let servers: Servers;
const env = { OPENPHONE_WEBHOOK_SECRET: FOLLOW_WEBHOOK_SECRET };
beforeAll(async () => {
  servers = await startServers({ anthropic: true, webhookSecret: FOLLOW_WEBHOOK_SECRET });
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

async function photoText(world: World, text: string) {
  const hook = await startWebhookReceiver(world);
  try {
    const d = await servers.openphone.fireIncomingMessage({
      from: MARIA,
      text,
      scheme: 'standard',
      media: [{ type: 'image/png' }],
      url: hook.url,
    });
    expect(d.status).toBe(202);
    await world.work();
  } finally {
    await hook.stop();
  }
  const conv = await world.conversationFor(`sms:${MARIA}`);
  if (!conv) throw new Error('no conversation');
  return conv;
}

test('a photo-only text keeps its photo, drafts a reply in rules mode, and never shows the provider URL', async () => {
  const world = await createWorld(servers, { env });
  try {
    const conv = await photoText(world, '');
    const messages = await world.core.conversations.listMessages(conv.id);
    const inbound = messages.find((m) => m.role === 'inbound');
    expect(inbound?.text).toBe('[photo]');
    expect(inbound?.media).toEqual([{ id: expect.stringMatching(/^med_[0-9a-f]{32}$/), type: 'image/png' }]);
    expect(JSON.stringify(messages)).not.toContain(servers.openphone.url);

    const id = inbound?.media?.[0]?.id as string;
    const record = await world.core.media.get(id);
    expect(record?.url).toMatch(new RegExp(`^${servers.openphone.url}/media/`));
    const bytes = await world.core.mediaFetcher.fetch(id);
    expect(bytes.type).toBe('image/png');
    expect(bytes.data.subarray(1, 4).toString()).toBe('PNG');

    const cards = await world.actionsFor(`sms:${MARIA}`);
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ tool: 'send_message', status: 'PENDING', args: { to: MARIA } });
  } finally {
    await world.stop();
  }
}, 60_000);

test('in Claude mode the model is sent the photo as an image block before the text', async () => {
  const world = await createWorld(servers, { claude: true, env });
  const before = servers.anthropic?.requests.length ?? 0;
  try {
    await photoText(world, 'Water under the sink again');
    const sent = (servers.anthropic?.requests ?? []).slice(before).find((r) => r.params);
    const turn = sent?.params?.messages.at(0);
    const blocks = Array.isArray(turn?.content) ? turn.content : [];
    expect(blocks[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
    expect(JSON.stringify(blocks.at(-1))).toContain('Water under the sink again [photo]');
  } finally {
    await world.stop();
  }
}, 60_000);
