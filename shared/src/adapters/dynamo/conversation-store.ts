import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Conversation, InboxFields, Message } from '../../contracts/conversations';
import { peoplePreview } from '../../domain/preview';
import { ValidationError } from '../../errors';
import type { ConversationStore } from '../../ports/conversation-store';
import { conflictOnConditionFailed, type DynamoTable, isConditionFailed, queryAll, stripKeys } from './base';

const meta = (id: string) => ({ pk: `CONV#${id}`, sk: 'META' });

export function dynamoConversationStore(t: DynamoTable): ConversationStore {
  return {
    async create(c) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { ...meta(c.id), gsi1pk: 'CONVS', gsi1sk: `${c.lastMessageAt}#${c.id}`, ...c },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        )
        .catch(conflictOnConditionFailed(`Conversation ${c.id} exists`));
      if (c.triggerKey) {
        await t.doc.send(
          new PutCommand({
            TableName: t.tableName,
            Item: { pk: `TRIGGER#${c.triggerKey}`, sk: 'TRIGGER', conversationId: c.id },
          }),
        );
      }
    },
    async get(id) {
      const res = await t.doc.send(new GetCommand({ TableName: t.tableName, Key: meta(id) }));
      return stripKeys<Conversation>(res.Item);
    },
    async list(opts) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'CONVS' },
          ScanIndexForward: false,
          Limit: opts?.limit ?? 50,
        }),
      );
      return (res.Items ?? []).map((i) => stripKeys<Conversation>(i) as Conversation);
    },
    async listPage({ limit, cursor }) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'CONVS' },
          ScanIndexForward: false,
          Limit: limit,
          ...(cursor ? { ExclusiveStartKey: decodeCursor(cursor) } : {}),
        }),
      );
      return {
        items: (res.Items ?? []).map((i) => stripKeys<Conversation>(i) as Conversation),
        ...(res.LastEvaluatedKey ? { next: encodeCursor(res.LastEvaluatedKey) } : {}),
      };
    },
    async listOpenUrgent({ maxPages }) {
      const items: Conversation[] = [];
      let start: Record<string, unknown> | undefined;
      let pages = 0;
      do {
        // The filter runs after the read: each page still costs what it reads, hence the page cap.
        const res = await t.doc.send(
          new QueryCommand({
            TableName: t.tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :p',
            FilterExpression: 'attribute_exists(urgent) AND (attribute_not_exists(#s) OR #s = :open)',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: { ':p': 'CONVS', ':open': 'open' },
            ScanIndexForward: false,
            ExclusiveStartKey: start,
          }),
        );
        for (const i of res.Items ?? []) items.push(stripKeys<Conversation>(i) as Conversation);
        start = res.LastEvaluatedKey;
        pages++;
      } while (start && pages < maxPages);
      return { items, ...(start ? { scannedTo: String(start.gsi1sk) } : {}) };
    },
    cursorAfter(c) {
      return encodeCursor({ ...meta(c.id), gsi1pk: 'CONVS', gsi1sk: `${c.lastMessageAt}#${c.id}` });
    },
    async findByTriggerKey(key) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: { pk: `TRIGGER#${key}`, sk: 'TRIGGER' } }),
      );
      const id = res.Item?.conversationId as string | undefined;
      return id ? this.get(id) : undefined;
    },
    async mapTriggerKey(key, conversationId) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { pk: `TRIGGER#${key}`, sk: 'TRIGGER', conversationId },
        }),
      );
    },
    async replaceMessage(m) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { pk: `CONV#${m.conversationId}`, sk: `MSG#${m.createdAt}#${m.id}`, ...m },
        }),
      );
      await moveForward(t, m);
    },
    async setInboxFields(conversationId, patch) {
      const parts = inboxParts(patch);
      if (!parts.sets.length && !parts.removes.length) return;
      await t.doc
        .send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: meta(conversationId),
            ...updateOf(parts),
            ConditionExpression: 'attribute_exists(pk)',
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
    async setThreadFields(conversationId, patch) {
      const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
      if (!entries.length) return;
      const sets = entries.filter(([, v]) => v !== null);
      const removes = entries.filter(([, v]) => v === null);
      const update = [
        sets.length ? `SET ${sets.map(([k]) => `#${k} = :${k}`).join(', ')}` : '',
        removes.length ? `REMOVE ${removes.map(([k]) => `#${k}`).join(', ')}` : '',
      ];
      await t.doc
        .send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: meta(conversationId),
            UpdateExpression: update.filter(Boolean).join(' '),
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
            ...(sets.length
              ? { ExpressionAttributeValues: Object.fromEntries(sets.map(([k, v]) => [`:${k}`, v])) }
              : {}),
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
    async appendMessage(m) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { pk: `CONV#${m.conversationId}`, sk: `MSG#${m.createdAt}#${m.id}`, ...m },
            ConditionExpression: 'attribute_not_exists(sk)',
          }),
        )
        .catch((e) => {
          // The same message written twice (a redelivered step) is not an error.
          if (!isConditionFailed(e)) throw e;
        });
      await moveForward(t, m);
    },
    async listMessages(conversationId, opts) {
      const out = await queryAll<Message>(t, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :m)',
        ExpressionAttributeValues: { ':p': `CONV#${conversationId}`, ':m': 'MSG#' },
      });
      return opts?.limit ? out.slice(-opts.limit) : out;
    },
    async adjustPending(conversationId, delta) {
      try {
        await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: meta(conversationId),
            UpdateExpression: 'SET pendingCount = pendingCount + :d',
            ConditionExpression: 'attribute_exists(pk) AND pendingCount >= :min',
            ExpressionAttributeValues: { ':d': delta, ':min': delta < 0 ? -delta : 0 },
          }),
        );
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
      }
    },
    async markRead(conversationId, userId, at) {
      await t.doc
        .send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: meta(conversationId),
            UpdateExpression: 'SET readBy.#u = :at',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#u': userId },
            ExpressionAttributeValues: { ':at': at },
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
  };
}

/** The conversation's preview and place in the list follow its newest message (tool steps do not count). */
/** The page cursor is the query's last key, opaque to the app (base64url JSON of the four key attributes). */
function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): Record<string, string> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const ok =
      key.gsi1pk === 'CONVS' &&
      ['pk', 'sk', 'gsi1sk'].every((k) => typeof key[k] === 'string') &&
      Object.keys(key).length === 4;
    if (ok) return key as Record<string, string>;
  } catch {
    // fall through
  }
  throw new ValidationError('The page cursor is not one this inbox gave out; start from the first page.');
}

/**
 * The parts of an update for the inbox's fields (urgent, status): `status: 'open'` is no status at all, so the
 * default view's "absent = open" holds for records written before statuses existed. Shared with the turn
 * store, which folds them into the conversation's one write of a turn.
 */
export function inboxParts(patch: InboxFields) {
  const sets: string[] = [];
  const removes: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (patch.urgent) {
    sets.push('#urgent = :urgent');
    names['#urgent'] = 'urgent';
    values[':urgent'] = patch.urgent;
  }
  if (patch.status) {
    names['#status'] = 'status';
    if (patch.status === 'open') removes.push('#status');
    else {
      sets.push('#status = :status');
      values[':status'] = patch.status;
    }
  }
  return { sets, removes, names, values };
}

/** SET and REMOVE clauses as one UpdateExpression, with only the name/value maps that are used. */
export function updateOf(p: ReturnType<typeof inboxParts>) {
  const expr = [
    p.sets.length ? `SET ${p.sets.join(', ')}` : '',
    p.removes.length ? `REMOVE ${p.removes.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    UpdateExpression: expr,
    ...(Object.keys(p.names).length ? { ExpressionAttributeNames: p.names } : {}),
    ...(Object.keys(p.values).length ? { ExpressionAttributeValues: p.values } : {}),
  };
}

async function moveForward(t: DynamoTable, m: Message) {
  if (m.role === 'tool') return;
  // The preview is people's words only (domain/preview.ts); the assistant's messages move the time.
  const preview = peoplePreview(m);
  await t.doc
    .send(
      new UpdateCommand({
        TableName: t.tableName,
        Key: meta(m.conversationId),
        // Something new from outside brings a done or archived conversation back into the inbox (issue 19).
        UpdateExpression: `SET ${preview === undefined ? '' : 'preview = :p, '}lastMessageAt = :at, updatedAt = :at, gsi1sk = :g${m.role === 'inbound' ? ' REMOVE #status' : ''}`,
        ...(m.role === 'inbound' ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
        ConditionExpression: 'attribute_exists(pk) AND lastMessageAt <= :at',
        ExpressionAttributeValues: {
          ...(preview === undefined ? {} : { ':p': preview }),
          ':at': m.createdAt,
          ':g': `${m.createdAt}#${m.conversationId}`,
        },
      }),
    )
    .catch(async (e) => {
      if (!isConditionFailed(e)) throw e;
      // Older than the last message but still new words from outside: it reopens all the same.
      if (m.role === 'inbound') await reopen(t, m.conversationId);
    });
}

async function reopen(t: DynamoTable, conversationId: string) {
  await t.doc
    .send(
      new UpdateCommand({
        TableName: t.tableName,
        Key: meta(conversationId),
        UpdateExpression: 'REMOVE #status',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    )
    .catch((e) => {
      if (!isConditionFailed(e)) throw e;
    });
}
