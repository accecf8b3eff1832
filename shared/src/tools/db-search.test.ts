import { beforeAll, describe, expect, it } from 'vitest';
import { freshTable } from '../../../test/helpers';
import { dynamoConversationArchive } from '../adapters/dynamo/conversation-archive';
import { dynamoConversationStore } from '../adapters/dynamo/conversation-store';
import type { Conversation, Message } from '../contracts/conversations';
import { NotFoundError, ValidationError } from '../errors';
import type { ConversationArchive } from '../ports/conversation-archive';
import type { ConversationStore } from '../ports/conversation-store';
import { ConversationCorpus, type DbSearchToolDeps, dbSearchTools, findContacts, snippet } from './db-search';
import { bindAll, ToolRegistry } from './registry';
import type { ToolContext } from './tool';

const TZ = 'America/New_York';
const MARIA = '+14155550101';
const BOB = '+14155550103';
const JO = '+14155550110';
const T0 = Date.parse('2025-03-01T14:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

const ctx: ToolContext = { conversationId: 'c', runId: 'r', now: new Date(), timezone: TZ };

let store: ConversationStore;
let archive: ConversationArchive;
let table: Awaited<ReturnType<typeof freshTable>>;

function conv(id: string, source: Conversation['source'], minute: number, contact?: Conversation['contact']) {
  return {
    id,
    title: contact?.name ? `${source.toUpperCase()} from ${contact.name}` : `Chat ${id}`,
    source,
    ...(contact ? { contact } : {}),
    preview: '',
    createdAt: at(minute),
    updatedAt: at(minute),
    lastMessageAt: at(minute),
    createdBy: source === 'chat' ? 'user_sam' : 'system',
    pendingCount: 0,
    readBy: {},
  } satisfies Conversation;
}

const msg = (
  conversationId: string,
  id: string,
  minute: number,
  role: Message['role'],
  text: string,
  extra: Partial<Message> = {},
): Message => ({
  id,
  conversationId,
  role,
  text,
  createdAt: at(minute),
  author: { kind: role === 'inbound' ? 'contact' : role === 'user' ? 'user' : 'assistant', name: 'x' },
  ...extra,
});

/** An executed send_message, as the runtime stores it: the proposal, then the `_result` twin. */
function sentText(
  conversationId: string,
  actionId: string,
  minute: number,
  to: string,
  text: string,
  toName: string,
) {
  const tool = { name: 'send_message', args: { to, text } };
  return [
    msg(conversationId, `m_${actionId}`, minute, 'tool', `Text ${to}: “${text}”`, { actionId, tool }),
    msg(conversationId, `m_${actionId}_result`, minute + 1, 'tool', `Done: Text ${to}`, {
      actionId,
      tool: { ...tool, result: { messageId: 'op_1', to: toName, status: 'sent' } },
    }),
  ];
}

async function seed() {
  const maria = conv('c_maria', 'sms', 0, { name: 'Maria Lopez', phone: MARIA });
  await store.create(maria);
  const inbound = (i: number, text: string) =>
    msg('c_maria', `m_maria_${i}`, i * 10, 'inbound', text, {
      channel: 'sms',
      author: { kind: 'contact', name: 'Maria Lopez' },
    });
  const mariaTexts = [
    'Hi, this is Maria from 12 Oak St #2',
    'The heater is banging again since last night',
    'It is really loud in the bedroom',
    'Is someone able to come today?',
    'I will be home after 4pm',
    'My neighbour says theirs is fine',
    'The kitchen faucet also drips a little',
    'Not urgent for the faucet though',
    'Thanks for the quick answer',
    'The plumber can use the side door',
    'See you tomorrow',
    'Oh and the hallway light is out',
    'Bye',
  ];
  for (const [i, text] of mariaTexts.entries()) await store.appendMessage(inbound(i, text));
  for (const m of sentText(
    'c_maria',
    'act_ack',
    15,
    MARIA,
    'Hi Maria, thanks, we will send someone today.',
    'Maria Lopez',
  ))
    await store.appendMessage(m);

  // A web chat in which Sam had the assistant text Maria: that text belongs to Maria's SMS history too.
  await store.create(conv('c_chat', 'chat', 200));
  await store.appendMessage(
    msg(
      'c_chat',
      'm_chat_1',
      200,
      'user',
      'text Maria that the plumber comes at 3 (he has the garage code)',
      {
        channel: 'web',
        author: { kind: 'user', name: 'Sam Chen', id: 'user_sam' },
      },
    ),
  );
  for (const m of sentText(
    'c_chat',
    'act_plumber',
    201,
    MARIA,
    'Hi Maria, the plumber comes at 3.',
    'Maria Lopez',
  ))
    await store.appendMessage(m);
  // A proposal that was denied has no `_result`: it was never sent and must not show up as a text.
  await store.appendMessage(
    msg('c_chat', 'm_act_denied', 203, 'tool', 'Text Maria', {
      tool: { name: 'send_message', args: { to: MARIA, text: 'Denied draft about the roof' } },
    }),
  );
  await store.appendMessage(
    msg('c_chat', 'm_chat_2', 204, 'assistant', 'Sent to Maria Lopez.', { channel: 'web' }),
  );

  await store.create(conv('c_david', 'email', 300, { name: 'David Kim', email: 'dkim@mail.example' }));
  await store.appendMessage(
    msg('c_david', 'm_david_1', 300, 'inbound', 'Can I renew my lease at 48 Elm Ave for 12 months?', {
      channel: 'email',
      author: { kind: 'contact', name: 'David Kim' },
    }),
  );

  await store.create(conv('c_bob', 'sms', 400, { name: 'Bob Martinez', phone: BOB }));
  await store.appendMessage(
    msg(
      'c_bob',
      'm_bob_1',
      400,
      'inbound',
      'Invoice 1042 for the pipe repair at 12 Oak St is in your inbox',
      {
        channel: 'sms',
        author: { kind: 'contact', name: 'Bob Martinez' },
      },
    ),
  );
  await store.appendMessage(
    msg('c_bob', 'm_bob_2', 401, 'inbound', 'The heater part arrives Friday', {
      channel: 'sms',
      author: { kind: 'contact', name: 'Bob Martinez' },
    }),
  );

  // A team member texting the company line: their texts are `user` messages and the answers `assistant`, both over SMS.
  await store.create(conv('c_jo', 'sms', 500, { name: 'Jo Patel', phone: JO, internal: true }));
  await store.appendMessage(
    msg('c_jo', 'm_jo_1', 500, 'user', 'What is on the calendar tomorrow?', {
      channel: 'sms',
      author: { kind: 'user', name: 'Jo Patel' },
    }),
  );
  await store.appendMessage(
    msg('c_jo', 'm_jo_2', 501, 'assistant', 'A showing at 10 at 48 Elm Ave #3.', { channel: 'sms' }),
  );
}

/** Counts archive reads, to check that refreshes only re-read what changed. */
function counting(inner: ConversationArchive) {
  const reads: string[] = [];
  const wrapped: ConversationArchive = {
    recentConversations: (o) => inner.recentConversations(o),
    latestMessages: (id, o) => {
      reads.push(id);
      return inner.latestMessages(id, o);
    },
  };
  return { wrapped, reads };
}

function tools(corpus: ConversationCorpus) {
  const deps: DbSearchToolDeps = { corpus, timezone: TZ };
  const registry = new ToolRegistry(bindAll(dbSearchTools, deps));
  return async (name: string, args: Record<string, unknown>) => {
    const v = registry.validateArgs(name, args);
    if (!v.ok) throw new ValidationError(v.reason);
    // biome-ignore lint/suspicious/noExplicitAny: tests read tool results field by field
    return registry.get(name).run(v.args, ctx) as Promise<Record<string, any>>;
  };
}

let call: ReturnType<typeof tools>;

beforeAll(async () => {
  table = await freshTable('dbsearch');
  store = dynamoConversationStore(table);
  archive = dynamoConversationArchive(table);
  await seed();
  call = tools(new ConversationCorpus(archive, { minRefreshMs: 0 }));
});

describe('DynamoDB conversation archive', () => {
  it('lists conversations newest first and pages up to the limit', async () => {
    const all = await archive.recentConversations({ limit: 50 });
    expect(all.map((c) => c.id)).toEqual(['c_jo', 'c_bob', 'c_david', 'c_chat', 'c_maria']);
    expect((await archive.recentConversations({ limit: 2 })).map((c) => c.id)).toEqual(['c_jo', 'c_bob']);
  });

  it('reads the latest messages oldest first, without tool results but with the recipient name', async () => {
    const last3 = await archive.latestMessages('c_maria', { limit: 3 });
    expect(last3.map((m) => m.id)).toEqual(['m_maria_10', 'm_maria_11', 'm_maria_12']);
    const chat = await archive.latestMessages('c_chat', { limit: 10 });
    const result = chat.find((m) => m.id === 'm_act_plumber_result');
    expect(result?.tool).toEqual({
      name: 'send_message',
      args: { to: MARIA, text: 'Hi Maria, the plumber comes at 3.' },
      result: { to: 'Maria Lopez' },
    });
  });
});

describe('search_conversations', () => {
  it('finds conversations by words, best first, in the shape the rules planner reads ({ hits })', async () => {
    const r = await call('search_conversations', { query: 'heater' });
    expect(r.hits.map((h: { conversationId: string }) => h.conversationId).sort()).toEqual([
      'c_bob',
      'c_maria',
    ]);
    expect(r.match).toBe('all words');
    const maria = r.hits.find((h: { conversationId: string }) => h.conversationId === 'c_maria');
    expect(maria).toMatchObject({
      title: 'SMS from Maria Lopez',
      source: 'sms',
      contact: { name: 'Maria Lopez', phone: MARIA },
    });
    expect(maria.matches[0].snippet).toContain('heater is banging');
    expect(maria.matches[0].at).toBe('2025-03-01T09:10:00-05:00');
    expect(r.searched).toMatchObject({ conversations: 5, complete: true });
  });

  it('matches prefixes and small typos, and names and titles', async () => {
    expect(
      (await call('search_conversations', { query: 'plumb' })).hits.map(
        (h: { conversationId: string }) => h.conversationId,
      ),
    ).toEqual(expect.arrayContaining(['c_chat', 'c_maria']));
    const typo = await call('search_conversations', { query: 'renewl lease' });
    expect(typo.hits[0].conversationId).toBe('c_david');
    const loose = await call('search_conversations', { query: 'gutter faucet' });
    expect(loose.match).toBe('any word');
    expect(loose.hits.map((h: { conversationId: string }) => h.conversationId)).toContain('c_maria');
    const byName = await call('search_conversations', { query: 'Martinez' });
    expect(byName.hits[0].conversationId).toBe('c_bob');
  });

  it('filters by source and date, and never indexes an unsent (denied) draft', async () => {
    const email = await call('search_conversations', { query: 'lease', source: 'email' });
    expect(email.hits.map((h: { conversationId: string }) => h.conversationId)).toEqual(['c_david']);
    const late = await call('search_conversations', { query: 'heater', since: '2025-03-01T12:00' });
    expect(late.hits.map((h: { conversationId: string }) => h.conversationId)).toEqual(['c_bob']);
    expect((await call('search_conversations', { query: 'roof' })).hits).toEqual([]);
  });

  it('sees new messages on the next call and re-reads only the conversations that changed', async () => {
    const { wrapped, reads } = counting(archive);
    const search = tools(new ConversationCorpus(wrapped, { minRefreshMs: 0 }));
    await search('search_conversations', { query: 'heater' });
    expect(reads.sort()).toEqual(['c_bob', 'c_chat', 'c_david', 'c_jo', 'c_maria']);
    reads.length = 0;
    await search('search_conversations', { query: 'heater' });
    expect(reads).toEqual([]);
    await store.appendMessage(
      msg('c_david', 'm_david_2', 600, 'inbound', 'Also the gutters are overflowing', {
        channel: 'email',
        author: { kind: 'contact', name: 'David Kim' },
      }),
    );
    const r = await search('search_conversations', { query: 'gutters' });
    expect(reads).toEqual(['c_david']);
    expect(r.hits.map((h: { conversationId: string }) => h.conversationId)).toEqual(['c_david']);
  });

  it('shares one refresh between parallel calls', async () => {
    const { wrapped, reads } = counting(archive);
    const search = tools(new ConversationCorpus(wrapped, { minRefreshMs: 0 }));
    await Promise.all([
      search('search_conversations', { query: 'heater' }),
      search('search_sms_history', { query: 'faucet' }),
      search('get_contact_sms_history', { contact: 'Bob' }),
    ]);
    expect(reads).toHaveLength(5);
  });

  it('says how far back it looked when the conversation cap bites', async () => {
    const search = tools(new ConversationCorpus(archive, { minRefreshMs: 0, maxConversations: 1 }));
    const r = await search('search_conversations', { query: 'heater' });
    expect(r.hits).toEqual([]);
    expect(r.searched).toMatchObject({ conversations: 1, complete: false });
    expect(r.searched.olderThanNotSearched).toBeDefined();
  });
});

describe('search_sms_history', () => {
  it('returns each hit with the five texts before and after it in that person’s thread', async () => {
    const r = await call('search_sms_history', { query: 'faucet' });
    expect(r.count).toBe(1);
    const hit = r.hits[0];
    expect(hit.contact).toEqual({ name: 'Maria Lopez', phone: MARIA });
    const texts = hit.messages.map((m: { text: string }) => m.text);
    // The two faucet texts are neighbours, so their windows merge into one.
    expect(
      hit.messages.filter((m: { match?: boolean }) => m.match).map((m: { text: string }) => m.text),
    ).toEqual(['The kitchen faucet also drips a little', 'Not urgent for the faucet though']);
    const first = texts.indexOf('The kitchen faucet also drips a little');
    const last = texts.indexOf('Not urgent for the faucet though');
    expect(first).toBe(5);
    expect(texts.length - 1 - last).toBe(5);
    // Our acknowledgement (sent from this conversation) is part of the thread, as an outgoing text.
    expect(hit.messages).toContainEqual(
      expect.objectContaining({ direction: 'out', text: 'Hi Maria, thanks, we will send someone today.' }),
    );
  });

  it('includes texts sent from other conversations and stops at the thread’s ends', async () => {
    const r = await call('search_sms_history', { query: 'hallway light' });
    const texts = r.hits[0].messages.map((m: { text: string }) => m.text);
    expect(texts.at(-1)).toBe('Hi Maria, the plumber comes at 3.');
    expect(texts).toHaveLength(5 + 1 + 2);
  });

  it('keeps separate people apart and can be limited to one contact by name or number', async () => {
    const both = await call('search_sms_history', { query: 'heater' });
    expect(both.hits.map((h: { contact: { phone: string } }) => h.contact.phone).sort()).toEqual(
      [BOB, MARIA].sort(),
    );
    const bob = await call('search_sms_history', { query: 'heater', contact: 'bob martinez' });
    expect(bob.hits.map((h: { contact: { phone: string } }) => h.contact.phone)).toEqual([BOB]);
    const byNumber = await call('search_sms_history', { query: 'heater', contact: '(415) 555-0101' });
    expect(byNumber.hits.map((h: { contact: { phone: string } }) => h.contact.phone)).toEqual([MARIA]);
  });

  it('leaves out email and web chat', async () => {
    expect((await call('search_sms_history', { query: 'renew lease' })).hits).toEqual([]);
    expect((await call('search_sms_history', { query: 'garage' })).hits).toEqual([]);
    expect((await call('search_conversations', { query: 'garage' })).hits[0].conversationId).toBe('c_chat');
  });
});

describe('get_contact_sms_history', () => {
  it('returns the texts with a contact oldest first, both directions, across conversations', async () => {
    const r = await call('get_contact_sms_history', { contact: 'maria lopez', limit: 100 });
    expect(r.contact).toEqual({ name: 'Maria Lopez', phone: MARIA });
    expect(r.total).toBe(13 + 2);
    const ats = r.messages.map((m: { at: string }) => Date.parse(m.at));
    expect([...ats].sort((a, b) => a - b)).toEqual(ats);
    expect(r.messages[0].text).toBe('Hi, this is Maria from 12 Oak St #2');
    expect(r.messages.filter((m: { direction: string }) => m.direction === 'out')).toHaveLength(2);
    expect(r.messages.map((m: { text: string }) => m.text)).not.toContain('Denied draft about the roof');
  });

  it('finds the contact by a misspelt name or by a formatted number', async () => {
    expect((await call('get_contact_sms_history', { contact: 'mria lopes' })).contact.phone).toBe(MARIA);
    expect((await call('get_contact_sms_history', { contact: '(415) 555-0103' })).contact.name).toBe(
      'Bob Martinez',
    );
  });

  it('pages back with limit and before', async () => {
    const r = await call('get_contact_sms_history', { contact: 'Maria', limit: 3 });
    expect(r.messages.map((m: { text: string }) => m.text)).toEqual([
      'Oh and the hallway light is out',
      'Bye',
      'Hi Maria, the plumber comes at 3.',
    ]);
    expect(r.earlierTexts).toBe(12);
    const older = await call('get_contact_sms_history', { contact: 'Maria', limit: 2, before: at(15) });
    expect(older.messages.map((m: { text: string }) => m.text)).toEqual([
      'Hi, this is Maria from 12 Oak St #2',
      'The heater is banging again since last night',
    ]);
  });

  it('covers a team member’s chat over SMS (their texts in, the assistant’s answers out)', async () => {
    const r = await call('get_contact_sms_history', { contact: 'Jo' });
    expect(r.messages.map((m: { direction: string; text: string }) => [m.direction, m.text])).toEqual([
      ['in', 'What is on the calendar tomorrow?'],
      ['out', 'A showing at 10 at 48 Elm Ave #3.'],
    ]);
  });

  it('says who it does know when nobody matches', async () => {
    const e = await call('get_contact_sms_history', { contact: 'Zebediah' }).catch((x) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e.message).toMatch(/Maria Lopez/);
    expect(e.message).toMatch(/search_contacts/);
  });
});

describe('helpers', () => {
  it('reports near-ties so the agent can ask which person was meant', () => {
    const people = [
      { key: '1', phone: '+1', name: 'Maria Lopez' },
      { key: '2', phone: '+2', name: 'Maria Lopes' },
      { key: '3', phone: '+3', name: 'Bob Martinez' },
    ];
    expect(
      findContacts(people, 'Maria Lop')
        .map((p) => p.key)
        .sort(),
    ).toEqual(['1', '2']);
    expect(findContacts(people, '+1 (000) 000-0001')).toEqual([]);
  });

  it('cuts a snippet around the first matched term', () => {
    const text = `${'a '.repeat(200)}the heater is loud${' b'.repeat(200)}`;
    const s = snippet(text, ['heater'], 20);
    expect(s).toMatch(/^….*heater.*…$/);
    expect(s.length).toBeLessThanOrEqual(42);
  });
});
