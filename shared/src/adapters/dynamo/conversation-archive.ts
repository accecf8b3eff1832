import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Conversation, Message } from '../../contracts/conversations';
import type { ConversationArchive } from '../../ports/conversation-archive';
import { type DynamoTable, stripKeys } from './base';

/**
 * The archive over the single table: conversations through gsi1 (`CONVS`, by `lastMessageAt#id`), messages
 * from the conversation's partition newest first (`MSG#<at>#<id>`), both paged up to the caller's limit.
 * Message reads project away `tool.result` (up to a few KB per executed action) except its `to` (the
 * recipient's name on a sent text), which search never needs.
 */
const PAGE = 100;

export function dynamoConversationArchive(t: DynamoTable): ConversationArchive {
  return {
    async recentConversations({ limit }) {
      const out: Conversation[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const res = await t.doc.send(
          new QueryCommand({
            TableName: t.tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :p',
            ExpressionAttributeValues: { ':p': 'CONVS' },
            ScanIndexForward: false,
            Limit: Math.min(PAGE, limit - out.length),
            ExclusiveStartKey: start,
          }),
        );
        for (const i of res.Items ?? []) out.push(stripKeys<Conversation>(i) as Conversation);
        start = res.LastEvaluatedKey;
      } while (start && out.length < limit);
      return out;
    },

    async latestMessages(conversationId, { limit }) {
      const out: Message[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const res = await t.doc.send(
          new QueryCommand({
            TableName: t.tableName,
            KeyConditionExpression: 'pk = :p AND begins_with(sk, :m)',
            ExpressionAttributeValues: { ':p': `CONV#${conversationId}`, ':m': 'MSG#' },
            ProjectionExpression:
              '#id, conversationId, #role, #text, createdAt, author, channel, runId, actionId, #tool.#name, #tool.args, #tool.#error, #tool.#result.#to',
            ExpressionAttributeNames: {
              '#id': 'id',
              '#role': 'role',
              '#text': 'text',
              '#tool': 'tool',
              '#name': 'name',
              '#error': 'error',
              '#result': 'result',
              '#to': 'to',
            },
            ScanIndexForward: false,
            Limit: Math.min(PAGE, limit - out.length),
            ExclusiveStartKey: start,
          }),
        );
        for (const i of res.Items ?? []) out.push(i as Message);
        start = res.LastEvaluatedKey;
      } while (start && out.length < limit);
      return out.reverse();
    },
  };
}
