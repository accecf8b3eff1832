import { z } from 'zod';
import { ConfigError } from './errors';

const csv = (def = '') =>
  z
    .string()
    .default(def)
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
const optionalUrl = z.string().url().optional();
/**
 * Pinned, not computed at run time: the highest-numbered `claude-sonnet-*` / `claude-haiku-*` alias in the
 * installed SDK's model list that is not on its deprecation list (test/anthropic-models.test.ts fails when
 * either appears on that list or a newer alias ships). Bump them with the SDK.
 */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_ANTHROPIC_HELPER_MODEL = 'claude-haiku-5-5';

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);

/**
 * Every setting the system reads, validated once per cold start. On AWS the secrets come from one
 * Secrets Manager secret (`SECRETS_ARN`, a JSON object of the same names) merged over the environment;
 * locally everything is environment variables (see .env.example). Optional integrations that are absent
 * simply switch their feature off (no ANTHROPIC_API_KEY → rules mode).
 */
export const configSchema = z.object({
  STAGE: z.enum(['local', 'test', 'aws']).default('local'),
  AWS_REGION: z.string().default('us-east-1'),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),

  TABLE_NAME: z.string().min(1),
  DYNAMODB_ENDPOINT: optionalUrl,
  EVENTS_QUEUE_URL: z.string().url(),
  DLQ_URL: optionalUrl,
  SQS_ENDPOINT: optionalUrl,

  TEAM_NAME: z.string().default('Switchboard team'),
  TEAM_TIMEZONE: z.string().default('America/New_York'),
  PUBLIC_BASE_URL: z.string().url().default('http://127.0.0.1:3000'),

  ALLOWED_EMAIL_DOMAINS: csv(),
  ADMIN_EMAILS: csv(),
  CLERK_JWT_KEY: z.string().optional(),
  CLERK_AUTHORIZED_PARTIES: csv(),
  CLERK_PUBLISHABLE_KEY: z.string().optional(),
  CLERK_SECRET_KEY: z.string().optional(),
  CLERK_API_URL: optionalUrl,
  DEV_AUTH_PRIVATE_KEY: z.string().optional(),

  OPENPHONE_API_BASE: z.string().url().default('https://api.openphone.com'),
  OPENPHONE_API_KEY: z.string().optional(),
  OPENPHONE_WEBHOOK_SECRET: z.string().optional(),
  OPENPHONE_SHARED_NUMBER: z.string().optional(),
  OPENPHONE_ASSISTANT_NUMBER: z.string().optional(),

  GOOGLE_API_BASE: optionalUrl,
  GOOGLE_TOKEN_URL: optionalUrl,
  GOOGLE_SERVICE_ACCOUNT_JSON: z.string().optional(),
  GOOGLE_IMPERSONATE_USER: z.string().optional(),
  GMAIL_GENERAL_QUERY: z.string().default('is:unread -category:promotions -from:notifications -from:leads'),
  GMAIL_LEADS_QUERY: z.string().default('from:leads'),
  EMAIL_BODY_LIMIT: int(4000),

  CLICKUP_API_BASE: z.string().url().default('https://api.clickup.com/api/v2'),
  CLICKUP_API_TOKEN: z.string().optional(),
  CLICKUP_TEAM_ID: z.string().optional(),

  TWILIO_API_BASE: optionalUrl,
  TWILIO_ACCOUNT_SID: z.string().optional(),
  TWILIO_AUTH_TOKEN: z.string().optional(),
  TWILIO_FROM_NUMBER: z.string().optional(),
  ONCALL_NUMBERS: csv(),
  ONCALL_HOURS: z.string().default('00:00-24:00'),
  ESCALATION_REQUIRES_APPROVAL: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  URGENT_KEYWORDS: csv(
    'flood,flooding,fire,smoke,gas leak,gas smell,smell gas,no heat,break-in,broken into,burst pipe,carbon monoxide,sparking',
  ),

  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: optionalUrl,
  ANTHROPIC_MODEL: z.string().default(DEFAULT_ANTHROPIC_MODEL),
  ANTHROPIC_HELPER_MODEL: z.string().default(DEFAULT_ANTHROPIC_HELPER_MODEL),

  WEB_ALLOWED_DOMAINS: csv(),

  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  VAPID_SUBJECT: z.string().default('mailto:ops@example.com'),

  MEMORY_GIT_URL: z.string().optional(),
  MEMORY_GIT_TOKEN: z.string().optional(),
  MEMORY_DIR: z.string().default('/tmp/switchboard-memory'),

  COOLDOWN_SECONDS: int(120),
  MAX_ITERATIONS: int(5),
  PENDING_INTENT_TTL_MINUTES: int(30),
  RUN_TOKEN_BUDGET: int(200_000),
});

export type Config = z.infer<typeof configSchema>;

/** Parses a plain environment map; the error names every missing or malformed variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    const names = result.error.issues.map((i) => `${i.path.join('.')} (${i.message})`).join(', ');
    throw new ConfigError(`Invalid configuration: ${names}`);
  }
  return result.data;
}

/**
 * On AWS, merge the JSON secret named by SECRETS_ARN over the environment, then parse. The fetcher is
 * injected so this module never imports an AWS SDK (the PWA imports shared contracts, not this).
 */
export async function loadConfig(
  env: Record<string, string | undefined>,
  fetchSecret?: (arn: string) => Promise<string>,
): Promise<Config> {
  const arn = env.SECRETS_ARN;
  if (!arn || !fetchSecret) return parseConfig(env);
  const raw = await fetchSecret(arn);
  let secrets: unknown;
  try {
    secrets = JSON.parse(raw);
  } catch {
    throw new ConfigError('Invalid configuration: SECRETS_ARN does not hold a JSON object');
  }
  const parsed = z.record(z.string(), z.string()).safeParse(secrets);
  if (!parsed.success) throw new ConfigError('Invalid configuration: SECRETS_ARN must map names to strings');
  return parseConfig({ ...env, ...parsed.data });
}
