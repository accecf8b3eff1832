import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AwsSettingsEmulator, startAwsSettingsEmulator } from '../emulators/aws-settings';
import { runDeploy } from './deploy-cli';
import { runSecretsPut } from './secrets-cli';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l) } };
};

describe('npm run deploy -- --dry-run', () => {
  test('synthesizes offline with cdk-nag and prints every call, stack by stack, in order', async () => {
    const c = capture();
    const ran: string[] = [];
    const code = await runDeploy(['--stage', 'staging', '--dry-run'], {
      env: { ALARM_EMAIL: 'ops@oakproperties.example' },
      ...c.io,
      run: (cmd) => {
        ran.push(cmd);
        return 0;
      },
    });
    expect(code, c.err.join('\n')).toBe(0);
    expect(ran).toEqual([]);
    const text = c.out.join('\n');
    expect(c.out[0]).toBe(
      'Stage staging: Switchboard-staging-Stateful → Switchboard-staging-Stateless (synth and cdk-nag passed)',
    );
    expect(text).toContain('ssm:GetParameter {"Name":"/cdk-bootstrap/hnb659fds/version"}');
    for (const stack of ['Switchboard-staging-Stateful', 'Switchboard-staging-Stateless']) {
      for (const call of ['DescribeStacks', 'CreateChangeSet', 'DescribeChangeSet', 'ExecuteChangeSet'])
        expect(text).toContain(`cloudformation:${call} {"StackName":"${stack}"`);
    }
    // Stateful first: the stateless stack imports its table, queues and secrets.
    expect(text.indexOf('"StackName":"Switchboard-staging-Stateful"')).toBeLessThan(
      text.indexOf('"StackName":"Switchboard-staging-Stateless"'),
    );
    expect(text).toContain(
      '"Capabilities":["CAPABILITY_IAM","CAPABILITY_NAMED_IAM","CAPABILITY_AUTO_EXPAND"]',
    );
    expect(text).toMatch(
      /"TemplateURL":"https:\/\/s3\.<your region>|"TemplateURL":"s3:\/\/cdk-hnb659fds-assets-/,
    );
  }, 120_000);

  test('bad input: no stage, a bad stage, a bad deployment setting → exit 2 naming it, nothing run', async () => {
    for (const [argv, env, message] of [
      [['--dry-run'], {}, /--stage is required/],
      [['--stage', 'Prod!'], {}, /--stage is required: a short lower-case name/],
      [['--stage', 'prod', '--dry-run'], { ALARM_EMAIL: 'not-an-email' }, /ALARM_EMAIL/],
      [['--stage', 'prod', '--bogus'], {}, /Unknown option '--bogus'/],
    ] as const) {
      const c = capture();
      const code = await runDeploy([...argv], { env: { ...env }, ...c.io, run: () => 0 });
      expect(code).toBe(2);
      expect(c.err.join('\n')).toMatch(message);
    }
  }, 60_000);
});

describe('npm run secrets:put', () => {
  let aws: AwsSettingsEmulator;
  let envFile: string;
  const client = () =>
    new SecretsManagerClient({
      region: 'us-east-1',
      endpoint: aws.url,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  beforeAll(async () => {
    aws = await startAwsSettingsEmulator();
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    envFile = join(dir, '.env');
    writeFileSync(
      envFile,
      [
        'TEAM_NAME=Oak Properties        # a setting, not a secret: not written',
        'OPENPHONE_WEBHOOK_SECRET="whsec_abc="',
        'TWILIO_AUTH_TOKEN=tw-token',
        'OPENPHONE_API_KEY=op-key',
        'CLERK_SECRET_KEY=sk_live_1',
        'ANTHROPIC_API_KEY=',
      ].join('\n'),
    );
  });
  afterAll(() => aws?.stop());

  test('--dry-run prints each Secrets Manager call with value lengths, never values, and sends nothing', async () => {
    const c = capture();
    const code = await runSecretsPut(
      ['--stage', 'prod', '--from', envFile, '--dry-run', '--region', 'eu-west-1'],
      {
        env: {},
        ...c.io,
        client,
      },
    );
    expect(code, c.err.join('\n')).toBe(0);
    const text = c.out.join('\n');
    expect(text).toContain(
      'secretsmanager:PutSecretValue {"SecretId":"Switchboard-prod/ingress","SecretString":<JSON of OPENPHONE_WEBHOOK_SECRET (10 chars), TWILIO_AUTH_TOKEN (8 chars)>}',
    );
    expect(text).toContain('secretsmanager:DescribeSecret {"SecretId":"Switchboard-prod/paging"}');
    expect(text).toContain('"SecretId":"Switchboard-prod/worker"');
    expect(text).toContain('"SecretId":"Switchboard-prod/api"');
    for (const secret of ['whsec_abc=', 'tw-token', 'op-key', 'sk_live_1'])
      expect(text).not.toContain(secret);
    expect(text).not.toContain('Oak Properties');
    expect(aws.calls).toEqual([]);
  });

  test('writes each group secret merged over what it holds (local Secrets Manager emulator)', async () => {
    aws.createSecret('Switchboard-prod/ingress', 'generated-password-not-json');
    aws.createSecret('Switchboard-prod/worker', JSON.stringify({ GOOGLE_SERVICE_ACCOUNT_JSON: '{"k":1}' }));
    aws.createSecret('Switchboard-prod/api');
    aws.createSecret('Switchboard-prod/paging');
    const c = capture();
    const code = await runSecretsPut(['--stage', 'prod', '--from', envFile], {
      env: { AWS_REGION: 'us-east-1' },
      ...c.io,
      client,
    });
    expect(code, c.err.join('\n')).toBe(0);
    expect(JSON.parse(aws.secretValue('Switchboard-prod/ingress') as string)).toEqual({
      OPENPHONE_WEBHOOK_SECRET: 'whsec_abc=',
      TWILIO_AUTH_TOKEN: 'tw-token',
    });
    // A value the file does not set is kept.
    expect(JSON.parse(aws.secretValue('Switchboard-prod/worker') as string)).toEqual({
      GOOGLE_SERVICE_ACCOUNT_JSON: '{"k":1}',
      OPENPHONE_API_KEY: 'op-key',
    });
    expect(JSON.parse(aws.secretValue('Switchboard-prod/api') as string)).toEqual({
      CLERK_SECRET_KEY: 'sk_live_1',
      OPENPHONE_API_KEY: 'op-key',
    });
    expect(JSON.parse(aws.secretValue('Switchboard-prod/paging') as string)).toEqual({
      TWILIO_AUTH_TOKEN: 'tw-token',
    });
    expect(c.out).toContain('updated Switchboard-prod/ingress: OPENPHONE_WEBHOOK_SECRET, TWILIO_AUTH_TOKEN');
  });

  test('a stage that was never deployed, a missing file, no region → clear errors', async () => {
    const c = capture();
    expect(
      await runSecretsPut(['--stage', 'nope', '--from', envFile], {
        env: { AWS_REGION: 'us-east-1' },
        ...c.io,
        client,
      }),
    ).toBe(1);
    expect(c.err.join('\n')).toContain('Switchboard-nope/ingress does not exist: deploy the stage first');
    const d = capture();
    expect(
      await runSecretsPut(['--stage', 'prod', '--from', '/nonexistent/.env'], {
        env: { AWS_REGION: 'x' },
        ...d.io,
      }),
    ).toBe(2);
    expect(d.err.join('\n')).toContain('/nonexistent/.env does not exist');
    const e = capture();
    expect(await runSecretsPut(['--stage', 'prod', '--from', envFile], { env: {}, ...e.io })).toBe(2);
    expect(e.err.join('\n')).toContain('no region');
  });
});
