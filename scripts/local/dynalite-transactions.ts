import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * dynalite (the no-Java fallback of the local stack) implements every DynamoDB operation we use except
 * TransactWriteItems, which the agent turn, the paging budget and research fan-in commit with. This proxy sits
 * in front of dynalite, forwards everything else untouched, and runs a TransactWriteItems request as its
 * single-item operations, each with its own condition, one transaction at a time; when a condition fails it
 * restores the items already written from the images it read first and answers TransactionCanceledException
 * with CancellationReasons in DynamoDB's shape, so the SDK and our code see what real DynamoDB returns.
 *
 * Honest limits, fine for one developer's machine and never used on AWS or in DynamoDB Local runs: a plain
 * write racing a transaction can interleave with it (transactions are serialised only with each other), and
 * the per-transaction item-count and size limits are not enforced.
 */
export async function startTransactionProxy(
  target: string,
): Promise<{ endpoint: string; stop(): Promise<void> }> {
  let queue: Promise<unknown> = Promise.resolve();
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const op = String(req.headers['x-amz-target'] ?? '');
    const headers = forwardHeaders(req);
    if (!op.endsWith('.TransactWriteItems')) {
      const r = await call(target, headers, op, body).catch((e: unknown) => unreachable(e));
      res.writeHead(r.status, { 'content-type': 'application/x-amz-json-1.0' }).end(r.text);
      return;
    }
    const run = queue.then(() => transact(target, headers, JSON.parse(body) as TransactRequest));
    queue = run.catch(() => {});
    const r = await run.catch((e: unknown) => unreachable(e));
    res.writeHead(r.status, { 'content-type': 'application/x-amz-json-1.0' }).end(r.text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Json = Record<string, unknown>;
interface TransactRequest {
  TransactItems: Array<{ Put?: Json; Update?: Json; Delete?: Json; ConditionCheck?: Json }>;
}
interface Reply {
  status: number;
  text: string;
}
interface Applied {
  table: string;
  key: Json;
  before?: Json;
}

async function transact(target: string, headers: Json, req: TransactRequest): Promise<Reply> {
  const applied: Applied[] = [];
  const items = req.TransactItems ?? [];
  for (const [i, entry] of items.entries()) {
    const step = await applyOne(target, headers, entry);
    if (step.ok) {
      applied.push(step.applied);
      continue;
    }
    await rollback(target, headers, applied);
    if (step.reply.status === 400 && step.reply.text.includes('ConditionalCheckFailed'))
      return cancelled(items.length, i, step.reply.text);
    return step.reply;
  }
  return { status: 200, text: '{}' };
}

/** One transact item as its single-item operation; reads the item's prior image first for a rollback. */
async function applyOne(
  target: string,
  headers: Json,
  entry: TransactRequest['TransactItems'][number],
): Promise<{ ok: true; applied: Applied } | { ok: false; reply: Reply }> {
  const [kind, spec] = Object.entries(entry)[0] as [string, Json];
  const table = spec.TableName as string;
  const key = kind === 'Put' ? await keyOf(target, headers, table, spec.Item as Json) : (spec.Key as Json);
  const before = await getItem(target, headers, table, key);
  const expr = pick(spec, ['ConditionExpression', 'ExpressionAttributeNames', 'ExpressionAttributeValues']);
  let reply: Reply;
  if (kind === 'Put')
    reply = await call(target, headers, 'PutItem', { TableName: table, Item: spec.Item, ...expr });
  else if (kind === 'Delete')
    reply = await call(target, headers, 'DeleteItem', { TableName: table, Key: key, ...expr });
  else if (kind === 'Update')
    reply = await call(target, headers, 'UpdateItem', {
      ...pick(spec, ['UpdateExpression']),
      TableName: table,
      Key: key,
      ...expr,
    });
  else {
    // ConditionCheck: rewrite the item as it was (or a bare key, removed again by the rollback) under the condition.
    reply = await call(target, headers, 'PutItem', { TableName: table, Item: before ?? key, ...expr });
    if (reply.status === 200) await restore(target, headers, { table, key, before });
  }
  return reply.status === 200 ? { ok: true, applied: { table, key, before } } : { ok: false, reply };
}

async function rollback(target: string, headers: Json, applied: Applied[]): Promise<void> {
  for (const a of [...applied].reverse()) await restore(target, headers, a);
}

async function restore(target: string, headers: Json, a: Applied): Promise<void> {
  if (a.before) await call(target, headers, 'PutItem', { TableName: a.table, Item: a.before });
  else await call(target, headers, 'DeleteItem', { TableName: a.table, Key: a.key });
}

function cancelled(count: number, failedAt: number, detail: string): Reply {
  const reasons = Array.from({ length: count }, (_, i) =>
    i === failedAt
      ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }
      : { Code: 'None' },
  );
  const codes = reasons.map((r) => (r.Code === 'None' ? 'None' : r.Code)).join(', ');
  return {
    status: 400,
    text: JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`,
      CancellationReasons: reasons,
      detail: detail.slice(0, 200),
    }),
  };
}

const keySchemas = new Map<string, string[]>();
async function keyOf(target: string, headers: Json, table: string, item: Json): Promise<Json> {
  let names = keySchemas.get(table);
  if (!names) {
    const r = await call(target, headers, 'DescribeTable', { TableName: table });
    const schema = (JSON.parse(r.text) as { Table: { KeySchema: Array<{ AttributeName: string }> } }).Table
      .KeySchema;
    names = schema.map((k) => k.AttributeName);
    keySchemas.set(table, names);
  }
  return Object.fromEntries(names.map((n) => [n, item[n]]));
}

async function getItem(target: string, headers: Json, table: string, key: Json): Promise<Json | undefined> {
  const r = await call(target, headers, 'GetItem', { TableName: table, Key: key, ConsistentRead: true });
  return r.status === 200 ? ((JSON.parse(r.text) as { Item?: Json }).Item ?? undefined) : undefined;
}

async function call(target: string, headers: Json, op: string, body: unknown): Promise<Reply> {
  const name = op.includes('.') ? op : `DynamoDB_20120810.${op}`;
  const res = await fetch(target, {
    method: 'POST',
    headers: { ...(headers as Record<string, string>), 'x-amz-target': name },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** dynalite checks that a request is signed, not the signature: the caller's headers serve every inner call. */
function forwardHeaders(req: IncomingMessage): Json {
  const h: Record<string, string> = { 'content-type': 'application/x-amz-json-1.0' };
  for (const k of ['authorization', 'x-amz-date', 'x-amz-security-token']) {
    const v = req.headers[k];
    if (typeof v === 'string') h[k] = v;
  }
  return h;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
    req.on('error', reject);
  });
}

function unreachable(e: unknown): Reply {
  const message = e instanceof Error ? e.message : String(e);
  return { status: 500, text: JSON.stringify({ __type: 'InternalServerError', message }) };
}
