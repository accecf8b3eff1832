import { ConfigError } from '../errors';

/** How long a fetched secret or parameter is trusted before the next cold path asks again. */
export const SETTINGS_TTL_SECONDS = 300;

/**
 * SDK request limits for the settings calls: far below any function's timeout, so a slow Secrets Manager or
 * SSM answer fails the cold start quickly (and is retried by the next invocation) instead of hanging it.
 */
const clientConfig = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000 },
};

/**
 * Secrets and parameters through Powertools Parameters: each value cached for SETTINGS_TTL_SECONDS, and a
 * failed load is not cached (Powertools stores only values it received), so one Secrets Manager hiccup costs
 * one request, not the container's life. Imported lazily: only AWS deployments use it.
 */
export function awsSettingsSource() {
  const providers = (async () => {
    const [{ SecretsProvider }, { SSMProvider }] = await Promise.all([
      import('@aws-lambda-powertools/parameters/secrets'),
      import('@aws-lambda-powertools/parameters/ssm'),
    ]);
    return { secrets: new SecretsProvider({ clientConfig }), ssm: new SSMProvider({ clientConfig }) };
  })();
  return {
    async secret(arn: string): Promise<string> {
      const value = await (await providers).secrets.get(arn, { maxAge: SETTINGS_TTL_SECONDS });
      if (typeof value !== 'string') throw new ConfigError(`Secret ${arn} holds no string value`);
      return value;
    },
    async parameter(name: string): Promise<string> {
      const value = await (await providers).ssm.get(name, { maxAge: SETTINGS_TTL_SECONDS });
      if (typeof value !== 'string' || !value) throw new ConfigError(`SSM parameter ${name} is empty`);
      return value;
    },
  };
}
export type SettingsSource = ReturnType<typeof awsSettingsSource>;

/**
 * The deployment's own facts that the CDK app cannot put in a function's environment: PUBLIC_BASE_URL when
 * it is the CloudFront domain (the distribution fronts the functions, so naming it would be a cycle).
 */
export async function resolveDeployedEnv(
  env: Record<string, string | undefined>,
  source: Pick<SettingsSource, 'parameter'>,
): Promise<Record<string, string | undefined>> {
  const name = env.PUBLIC_BASE_URL_PARAMETER;
  if (!name || env.PUBLIC_BASE_URL) return env;
  return { ...env, PUBLIC_BASE_URL: await source.parameter(name) };
}
