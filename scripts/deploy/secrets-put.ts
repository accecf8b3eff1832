import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { SECRET_GROUP_NAMES, SECRET_GROUPS, type SecretGroup } from '../../shared/src/secret-groups';

export interface SecretWrite {
  group: SecretGroup;
  /** The secret the stateful stack created: `Switchboard-<stage>/<group>`. */
  secretId: string;
  values: Record<string, string>;
  /** The group's names the .env file does not set (their stored values are kept). */
  missing: string[];
}

/** Each group's secret gets the .env values of its names; a name in two groups goes to both. */
export function planSecretWrites(stage: string, env: Record<string, string>): SecretWrite[] {
  const writes: SecretWrite[] = [];
  for (const group of SECRET_GROUP_NAMES) {
    const names: readonly string[] = SECRET_GROUPS[group];
    const values = Object.fromEntries(names.filter((n) => env[n]).map((n) => [n, env[n] as string]));
    if (Object.keys(values).length === 0) continue;
    writes.push({
      group,
      secretId: `Switchboard-${stage}/${group}`,
      values,
      missing: names.filter((n) => !env[n]),
    });
  }
  return writes;
}

/** One line per Secrets Manager call; values are never printed, only their names and lengths. */
export function describeSecretCalls(writes: SecretWrite[]): string[] {
  const lines: string[] = [];
  for (const w of writes) {
    const keys = Object.entries(w.values).map(([k, v]) => `${k} (${v.length} chars)`);
    lines.push(
      `secretsmanager:DescribeSecret {"SecretId":"${w.secretId}"}`,
      `secretsmanager:GetSecretValue {"SecretId":"${w.secretId}"}  (to keep values not in the file${w.missing.length ? `: ${w.missing.join(', ')}` : ''})`,
      `secretsmanager:PutSecretValue {"SecretId":"${w.secretId}","SecretString":<JSON of ${keys.join(', ')}>}`,
    );
  }
  return lines;
}

/**
 * Writes each group's secret, merged over what it holds: a value the file does not set is kept, so putting
 * one new key never erases the others. A secret that does not exist means the stack is not deployed.
 */
export async function putSecrets(client: SecretsManagerClient, writes: SecretWrite[]): Promise<string[]> {
  const done: string[] = [];
  for (const w of writes) {
    await client.send(new DescribeSecretCommand({ SecretId: w.secretId })).catch((e: unknown) => {
      if (errorName(e) === 'ResourceNotFoundException')
        throw new Error(`${w.secretId} does not exist: deploy the stage first (npm run deploy -- --stage …)`);
      throw e;
    });
    const current = await storedObject(client, w.secretId);
    const merged = { ...current, ...w.values };
    await client.send(
      new PutSecretValueCommand({ SecretId: w.secretId, SecretString: JSON.stringify(merged) }),
    );
    done.push(`${w.secretId}: ${Object.keys(w.values).join(', ')}`);
  }
  return done;
}

/** A fresh CDK secret holds a generated password, not JSON; a secret never given a value has none. */
async function storedObject(client: SecretsManagerClient, secretId: string): Promise<Record<string, string>> {
  try {
    const res = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    const parsed: unknown = JSON.parse(res.SecretString ?? '');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.fromEntries(
        Object.entries(parsed as Record<string, unknown>).filter(([, v]) => typeof v === 'string'),
      ) as Record<string, string>;
    }
    return {};
  } catch (e) {
    if (errorName(e) === 'ResourceNotFoundException' || e instanceof SyntaxError) return {};
    throw e;
  }
}

function errorName(e: unknown): string {
  return typeof e === 'object' && e !== null && 'name' in e ? String((e as { name: unknown }).name) : '';
}
