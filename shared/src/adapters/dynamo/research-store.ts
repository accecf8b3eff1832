import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type NodeStatus,
  type ResearchNode,
  type ResearchTask,
  researchNode,
  researchTask,
} from '../../contracts/research';
import type { ResearchStore } from '../../ports/research-store';
import { type DynamoTable, isConditionFailed, stripKeys } from './base';

const pk = (taskId: string) => `RESEARCH#${taskId}`;
const TASK_SK = 'TASK';
const nodeSk = (id: string) => `NODE#${id}`;
const nodeKey = (taskId: string, id: string) => ({ pk: pk(taskId), sk: nodeSk(id) });
const taskKey = (taskId: string) => ({ pk: pk(taskId), sk: TASK_SK });

type Transact = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** `SET #a = :a, …` for a patch (undefined values skipped; `remove` names attributes to drop). */
function setExpression(patch: Record<string, unknown>, remove: string[] = []) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || k === 'id' || k === 'taskId') continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  for (const r of remove) names[`#${r}`] = r;
  const rm = remove.length ? ` REMOVE ${remove.map((r) => `#${r}`).join(', ')}` : '';
  return { expr: `SET ${sets.join(', ')}${rm}`, names, values };
}

/** The single-table store of research tasks (partition `RESEARCH#<task>`: `TASK` and `NODE#<id>`). */
export function dynamoResearchStore(t: DynamoTable): ResearchStore {
  const conditional = async (run: () => Promise<unknown>) => {
    try {
      await run();
      return true;
    } catch (e) {
      if (isConditionFailed(e)) return false;
      throw e;
    }
  };
  const getNode = async (taskId: string, id: string) => {
    const res = await t.doc.send(
      new GetCommand({ TableName: t.tableName, Key: nodeKey(taskId, id), ConsistentRead: true }),
    );
    return res.Item;
  };

  return {
    create(task, root) {
      return conditional(() =>
        t.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: t.tableName,
                  Item: { ...taskKey(task.id), ...task },
                  ConditionExpression: 'attribute_not_exists(sk)',
                },
              },
              {
                Put: {
                  TableName: t.tableName,
                  Item: { ...nodeKey(task.id, root.id), ...root },
                  ConditionExpression: 'attribute_not_exists(sk)',
                },
              },
            ],
          }),
        ),
      );
    },

    async load(taskId) {
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const res = await t.doc.send(
          new QueryCommand({
            TableName: t.tableName,
            KeyConditionExpression: 'pk = :p',
            ExpressionAttributeValues: { ':p': pk(taskId) },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        items.push(...(res.Items ?? []));
        start = res.LastEvaluatedKey;
      } while (start);
      const taskItem = items.find((i) => i.sk === TASK_SK);
      if (!taskItem) return undefined;
      const nodes = items
        .filter((i) => String(i.sk).startsWith('NODE#'))
        .map((i) => researchNode.parse(stripKeys(i)));
      return { task: researchTask.parse(stripKeys(taskItem)), nodes: nodes.sort(byId) };
    },

    async getTask(taskId) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: taskKey(taskId), ConsistentRead: true }),
      );
      return res.Item ? researchTask.parse(stripKeys(res.Item)) : undefined;
    },

    claim(taskId, nodeId, o) {
      const s = setExpression({
        status: o.to,
        leaseUntil: o.leaseUntil,
        ...(o.to === 'RUNNING' ? { startedAt: o.now } : {}),
        ...(o.context ? { context: o.context } : {}),
      });
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: nodeKey(taskId, nodeId),
            UpdateExpression: s.expr,
            // A lease that ran out means the worker holding it died: the redelivered message takes over.
            ConditionExpression: '#status = :from OR (#status = :status AND #leaseUntil < :now)',
            ExpressionAttributeNames: s.names,
            ExpressionAttributeValues: { ...s.values, ':from': o.from, ':now': o.now },
          }),
        ),
      );
    },

    saveDraft(taskId, draft, reason, now, editId) {
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: taskKey(taskId),
            UpdateExpression: `SET #s = :review, draft = :d, reviewReason = :r, updatedAt = :now${
              editId ? ', lastEditId = :e' : ''
            }`,
            // An edit asked by a message is saved once: its redelivery finds its id and changes nothing.
            ConditionExpression: `#s IN (:planning, :review)${
              editId ? ' AND (attribute_not_exists(lastEditId) OR lastEditId <> :e)' : ''
            }`,
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':review': 'review',
              ':planning': 'planning',
              ':d': draft,
              ':r': reason,
              ':now': now,
              ...(editId ? { ':e': editId } : {}),
            },
          }),
        ),
      );
    },

    async materialize(input) {
      const n = input.children.length;
      const items: Transact[] = [
        {
          Update: {
            TableName: t.tableName,
            Key: nodeKey(input.taskId, input.parentId),
            UpdateExpression:
              'SET #s = :done, pendingChildren = :n, children = :ids, updatedAt = :now REMOVE leaseUntil',
            ConditionExpression: '#s = :running',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':done': 'PLAN_DONE',
              ':running': 'RUNNING',
              ':n': n,
              ':ids': input.children.map((c) => c.id),
              ':now': input.now,
            },
          },
        },
        {
          Update: {
            TableName: t.tableName,
            Key: taskKey(input.taskId),
            UpdateExpression: `SET #u.#n = #u.#n + :n, #s = :running, updatedAt = :now${
              input.reviewedBy ? ', reviewedBy = :by' : ''
            } REMOVE draft`,
            ConditionExpression: '#u.#n <= :room AND #s IN (:planning, :review, :running)',
            ExpressionAttributeNames: { '#u': 'usage', '#n': 'nodes', '#s': 'status' },
            ExpressionAttributeValues: {
              ':n': n,
              ':room': input.maxNodes - n,
              ':running': 'running',
              ':planning': 'planning',
              ':review': 'review',
              ':now': input.now,
              ...(input.reviewedBy ? { ':by': input.reviewedBy } : {}),
            },
          },
        },
        ...input.children.map(
          (c): Transact => ({
            Put: {
              TableName: t.tableName,
              Item: { ...nodeKey(input.taskId, c.id), ...c },
              ConditionExpression: 'attribute_not_exists(sk)',
            },
          }),
        ),
      ];
      const done = await conditional(() => t.doc.send(new TransactWriteCommand({ TransactItems: items })));
      if (done) return 'created';
      const parent = await getNode(input.taskId, input.parentId);
      return parent?.status === 'RUNNING' ? 'over_budget' : 'already';
    },

    finish(taskId, nodeId, from, patch) {
      const s = setExpression(patch as Record<string, unknown>, ['leaseUntil']);
      const froms = Object.fromEntries(from.map((f, i) => [`:f${i}`, f]));
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: nodeKey(taskId, nodeId),
            UpdateExpression: s.expr,
            ConditionExpression: `#status IN (${Object.keys(froms).join(', ')})`,
            ExpressionAttributeNames: { ...s.names, '#status': 'status' },
            ExpressionAttributeValues: { ...s.values, ...froms },
          }),
        ),
      );
    },

    release(taskId, nodeId, patch) {
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: nodeKey(taskId, nodeId),
            UpdateExpression: 'SET #s = :ready, attempts = :a, #e = :e REMOVE leaseUntil',
            ConditionExpression: '#s = :running',
            ExpressionAttributeNames: { '#s': 'status', '#e': 'error' },
            ExpressionAttributeValues: {
              ':ready': 'READY',
              ':running': 'RUNNING',
              ':a': patch.attempts,
              ':e': patch.error,
            },
          }),
        ),
      );
    },

    async countDown(taskId, nodeId, counter, doneId) {
      const done = counter === 'pendingDeps' ? 'doneDeps' : 'doneChildren';
      try {
        const res = await t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: nodeKey(taskId, nodeId),
            // The set of ids already counted makes the decrement idempotent under redelivery.
            UpdateExpression: 'SET #c = #c - :one ADD #d :id',
            ConditionExpression: 'attribute_exists(sk) AND NOT contains(#d, :doneId)',
            ExpressionAttributeNames: { '#c': counter, '#d': done },
            ExpressionAttributeValues: { ':one': 1, ':id': new Set([doneId]), ':doneId': doneId },
            ReturnValues: 'ALL_NEW',
          }),
        );
        const a = res.Attributes ?? {};
        return { applied: true, status: a.status as NodeStatus, remaining: Number(a[counter]) };
      } catch (e) {
        if (!isConditionFailed(e)) throw e;
        const item = await getNode(taskId, nodeId);
        return {
          applied: false,
          status: (item?.status ?? 'FAILED') as NodeStatus,
          remaining: Number(item?.[counter] ?? 0),
        };
      }
    },

    promote(taskId, nodeId, from, to, now) {
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: nodeKey(taskId, nodeId),
            UpdateExpression: `SET #s = :to${to === 'READY' ? ', readyAt = :now' : ''} REMOVE leaseUntil`,
            ConditionExpression: '#s = :from',
            ExpressionAttributeNames: { '#s': 'status' },
            ExpressionAttributeValues: {
              ':to': to,
              ':from': from,
              ...(to === 'READY' ? { ':now': now } : {}),
            },
          }),
        ),
      );
    },

    updateTask(taskId, patch, onlyFrom) {
      const s = setExpression(patch as Record<string, unknown>);
      const froms = Object.fromEntries((onlyFrom ?? []).map((f, i) => [`:f${i}`, f]));
      const cond = onlyFrom?.length
        ? `attribute_exists(sk) AND #status IN (${Object.keys(froms).join(', ')})`
        : 'attribute_exists(sk)';
      return conditional(() =>
        t.doc.send(
          new UpdateCommand({
            TableName: t.tableName,
            Key: taskKey(taskId),
            UpdateExpression: s.expr,
            ConditionExpression: cond,
            ExpressionAttributeNames: { ...s.names, '#status': 'status' },
            ExpressionAttributeValues: { ...s.values, ...froms },
          }),
        ),
      );
    },

    async addTokens(taskId, tokens) {
      if (tokens <= 0) return;
      await t.doc.send(
        new UpdateCommand({
          TableName: t.tableName,
          Key: taskKey(taskId),
          UpdateExpression: 'SET #u.#t = #u.#t + :n',
          ExpressionAttributeNames: { '#u': 'usage', '#t': 'tokens' },
          ExpressionAttributeValues: { ':n': tokens },
        }),
      );
    },
  };
}

function byId(a: ResearchNode, b: ResearchNode) {
  return a.id.localeCompare(b.id, undefined, { numeric: true });
}

export type { ResearchNode, ResearchTask };
