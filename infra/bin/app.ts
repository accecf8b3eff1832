import { buildApp } from '../lib/app';

// Non-secret settings come from the deploying shell (see README "Deploy"); secrets live in Secrets Manager.
const pick = (names: string[]) =>
  Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n] as string]));

const { app } = buildApp({
  settings: pick([
    'TEAM_NAME',
    'TEAM_TIMEZONE',
    'ALLOWED_EMAIL_DOMAINS',
    'ADMIN_EMAILS',
    'CLERK_AUTHORIZED_PARTIES',
    'CLERK_PUBLISHABLE_KEY',
    'OPENPHONE_SHARED_NUMBER',
    'OPENPHONE_ASSISTANT_NUMBER',
    'GOOGLE_IMPERSONATE_USER',
    'CLICKUP_TEAM_ID',
    'ONCALL_NUMBERS',
    'ONCALL_HOURS',
    'VAPID_PUBLIC_KEY',
    'VAPID_SUBJECT',
    'PUBLIC_BASE_URL',
    'MEMORY_GIT_URL',
    'ANTHROPIC_MODEL',
    'ANTHROPIC_HELPER_MODEL',
  ]),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
app.synth();
