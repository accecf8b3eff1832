import { afterAll, beforeAll, beforeEach, expect, test, vi } from 'vitest';
import { type AwsSettingsEmulator, startAwsSettingsEmulator } from '../../../scripts/emulators/aws-settings';
import { getCore, resetComposition } from '../composition/core';

/**
 * Settings on AWS through Powertools Parameters, against a local Secrets Manager + SSM that speak the AWS JSON
 * protocol to the real SDK clients: PUBLIC_BASE_URL from the deployment's SSM parameter, secrets with a TTL,
 * and a failed load that is not cached.
 */
let aws: AwsSettingsEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  aws = await startAwsSettingsEmulator();
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.url,
    AWS_ENDPOINT_URL_SSM: aws.url,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
  });
  const arn = aws.createSecret('switchboard-api', JSON.stringify({ CLERK_JWT_KEY: 'first-key' }));
  aws.putParameter('/switchboard/dev/public-base-url', 'https://d111111abcdef8.cloudfront.net');
  env = {
    STAGE: 'aws',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: 'switchboard-dev',
    EVENTS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/events',
    SECRETS_ARN: arn,
    PUBLIC_BASE_URL_PARAMETER: '/switchboard/dev/public-base-url',
  };
});
afterAll(() => aws.stop());
beforeEach(() => {
  resetComposition();
  vi.useRealTimers();
});

test('PUBLIC_BASE_URL comes from the SSM parameter the stack wrote; secrets merge over the environment', async () => {
  const core = await getCore('settings-a', env);
  expect(core.config.PUBLIC_BASE_URL).toBe('https://d111111abcdef8.cloudfront.net');
  expect(core.config.CLERK_JWT_KEY).toBe('first-key');
});

test('a function with several group secrets (SECRETS_ARNS) gets them all merged', async () => {
  const api = aws.createSecret('dev/api', JSON.stringify({ CLERK_JWT_KEY: 'api-key' }));
  const paging = aws.createSecret('dev/paging', JSON.stringify({ TWILIO_ACCOUNT_SID: 'AC123' }));
  const { SECRETS_ARN: _, ...rest } = env;
  const core = await getCore('settings-groups', { ...rest, SECRETS_ARNS: `${api},${paging}` });
  expect(core.config.CLERK_JWT_KEY).toBe('api-key');
  expect(core.config.TWILIO_ACCOUNT_SID).toBe('AC123');
});

test('on AWS without a known PUBLIC_BASE_URL the configuration is refused, not defaulted to 127.0.0.1', async () => {
  const { PUBLIC_BASE_URL_PARAMETER: _, SECRETS_ARN: __, ...rest } = env;
  await expect(getCore('settings-b', rest)).rejects.toThrow(/PUBLIC_BASE_URL is unknown on AWS/);
});

test('a failed load at cold start is not cached: the next invocation loads', async () => {
  aws.failNext(10);
  await expect(getCore('settings-c', env)).rejects.toThrow();
  aws.failNext(0);
  const core = await getCore('settings-c', env);
  expect(core.config.CLERK_JWT_KEY).toBe('first-key');
});

test('a secret filled in after the first load reaches a warm function once the TTL has passed', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-23T10:00:00Z'));
  const first = await getCore('settings-d', env);
  aws.createSecret('unused');
  const arn = env.SECRETS_ARN as string;
  const calls = aws.calls.length;
  // Within the TTL: the same core, no call to Secrets Manager.
  expect(await getCore('settings-d', env)).toBe(first);
  expect(aws.calls.length).toBe(calls);
  await putSecret(arn, { CLERK_JWT_KEY: 'second-key' });
  vi.setSystemTime(new Date('2026-11-23T10:05:01Z'));
  const second = await getCore('settings-d', env);
  expect(second.config.CLERK_JWT_KEY).toBe('second-key');
  // Unchanged settings after another TTL keep the same core (no rebuild of clients).
  vi.setSystemTime(new Date('2026-11-23T10:10:02Z'));
  expect(await getCore('settings-d', env)).toBe(second);
});

async function putSecret(arn: string, value: Record<string, string>) {
  const { SecretsManagerClient, PutSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  await new SecretsManagerClient({}).send(
    new PutSecretValueCommand({ SecretId: arn, SecretString: JSON.stringify(value) }),
  );
}
