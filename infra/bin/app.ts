import { buildApp } from '../lib/app';
import { parseDeployment } from '../lib/deployment';

// Non-secret settings come from the deploying shell (see README "Deploy"); secrets live in Secrets Manager.
// PUBLIC_BASE_URL is not among them: it comes from the deployment (DOMAIN_NAME or the CloudFront domain).
const pick = (names: string[]) =>
  Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n] as string]));

const { app } = buildApp({
  // STAGE, DOMAIN_NAME, certificates, limits, WAF, ALARM_EMAIL: validated, or synth stops naming the variable.
  deployment: parseDeployment(process.env),
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
    'MEMORY_GIT_URL',
    'ANTHROPIC_MODEL',
    'ANTHROPIC_HELPER_MODEL',
  ]),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
app.synth();
