import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Run, RunStep } from '../../contracts/runs';
import type { RunStore } from '../../ports/run-store';
import { type DynamoTable, isConditionFailed, queryAll, stripKeys } from './base';

const runKey = (c: string, r: string) => ({ pk: `CONV#${c}`, sk: `RUN#${r}` });
const stepSk = (r: string, seq: number) => `STEP#${r}#${String(seq).padStart(6, '0')}`;

export function dynamoRunStore(t: DynamoTable): RunStore {
  return {
    async create(run) {
      await t.doc
        .send(
          new PutCommand({
            TableName: t.tableName,
            Item: { ...runKey(run.conversationId, run.id), ...run },
            ConditionExpression: 'attribute_not_exists(sk)',
          }),
        )
        .catch((e) => {
          if (!isConditionFailed(e)) throw e;
        });
    },
    async get(c, r) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: runKey(c, r), ConsistentRead: true }),
      );
      return stripKeys<Run>(res.Item);
    },
    async update(c, r, patch) {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const sets: string[] = [];
      for (const [k, v] of Object.entries(patch)) {
        if (k === 'id' || k === 'conversationId' || v === undefined) continue;
        names[`#${k}`] = k;
        values[`:${k}`] = v;
        sets.push(`#${k} = :${k}`);
      }
      if (sets.length === 0) return;
      await t.doc.send(
        new UpdateCommand({
          TableName: t.tableName,
          Key: runKey(c, r),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(sk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    },
    async appendStep(c, step) {
      try {
        await t.doc.send(
          new PutCommand({
            TableName: t.tableName,
            Item: { pk: `CONV#${c}`, sk: stepSk(step.runId, step.seq), ...step },
            ConditionExpression: 'attribute_not_exists(sk)',
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },
    async listSteps(c, r) {
      const out = await queryAll<RunStep>(t, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': `CONV#${c}`, ':s': `STEP#${r}#` },
        ConsistentRead: true,
      });
      return out;
    },
    async findActive(c) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          KeyConditionExpression: 'pk = :p AND begins_with(sk, :r)',
          FilterExpression: '#s IN (:a, :b)',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: {
            ':p': `CONV#${c}`,
            ':r': 'RUN#',
            ':a': 'awaiting_approval',
            ':b': 'running',
          },
          ConsistentRead: true,
        }),
      );
      const runs = (res.Items ?? []).map((i) => stripKeys<Run>(i) as Run);
      return runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
    },
  };
}
