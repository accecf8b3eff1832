import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseDeployArgs, UsageError } from './cli-args';
import { readDotEnv } from './dotenv';
import { describeSecretCalls, planSecretWrites, putSecrets } from './secrets-put';

export interface SecretsIo {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Tests point the real SDK at the local Secrets Manager emulator. */
  client?: (region: string) => SecretsManagerClient;
}

/**
 * `npm run secrets:put -- --stage prod --from .env [--dry-run] [--region eu-west-1]`: each function group's
 * secret gets the .env values of its names (shared/src/secret-groups.ts). `--dry-run` prints every Secrets
 * Manager call it would make, values replaced by their length, and sends nothing.
 */
export async function runSecretsPut(argv: string[], io: SecretsIo): Promise<number> {
  try {
    const { stage, dryRun, region: r, values } = parseDeployArgs(argv, { from: { type: 'string' } });
    const from = typeof values.from === 'string' ? values.from : '.env';
    const region = r ?? io.env.AWS_REGION ?? io.env.CDK_DEFAULT_REGION;
    if (!region) throw new UsageError('no region: pass --region or set AWS_REGION');
    let file: Record<string, string>;
    try {
      file = readDotEnv(from);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const writes = planSecretWrites(stage, file);
    if (writes.length === 0) throw new UsageError(`${from} sets none of the secrets (see README "Deploy")`);
    if (dryRun) {
      io.out(`Dry run: these Secrets Manager calls (region ${region}) would be made; nothing is sent.`);
      for (const line of describeSecretCalls(writes)) io.out(line);
      return 0;
    }
    const client = io.client?.(region) ?? new SecretsManagerClient({ region });
    try {
      for (const line of await putSecrets(client, writes)) io.out(`updated ${line}`);
    } finally {
      client.destroy();
    }
    return 0;
  } catch (e) {
    io.err(`secrets:put: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}
