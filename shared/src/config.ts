import * as z from 'zod/mini';
import { ConfigError } from './errors';

// zod/mini (functional, tree-shaken): every function parses this at cold start, the webhook included,
// whose bundle budget (300 KB) the classic API alone would exceed (issue 16).
const str = z.string();
const optional = z.optional(str);
const text = (def: string) => z._default(str, def);
const csv = (def = '') =>
  z.pipe(
    text(def),
    z.transform((s: string) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  );
const url = z.url();
const optionalUrl = z.optional(url);
/**
 * Pinned, not computed at run time: the highest-numbered `claude-sonnet-*` / `claude-haiku-*` alias in the
 * installed SDK's model list that is not on its deprecation list (test/anthropic-models.test.ts fails when
 * either appears on that list or a newer alias ships). Bump them with the SDK.
 */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_ANTHROPIC_HELPER_MODEL = 'claude-haiku-5-5';

const int = (def: number) =>
  z._default(z.coerce.number().check(z.refine(Number.isInteger, 'must be a whole number'), z.gte(0)), def);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T, def: T[number]) =>
  z._default(z.enum(values), def);

/**
 * Every setting the system reads, validated once per cold start. On AWS the secrets come from one
 * Secrets Manager secret (`SECRETS_ARN`, a JSON object of the same names) merged over the environment;
 * locally everything is environment variables (see .env.example). Optional integrations that are absent
 * simply switch their feature off (no ANTHROPIC_API_KEY → rules mode).
 */
export const configSchema = z.object({
  STAGE: oneOf(['local', 'test', 'aws'], 'local'),
  AWS_REGION: text('us-east-1'),
  LOG_LEVEL: oneOf(['DEBUG', 'INFO', 'WARN', 'ERROR'], 'INFO'),
  /** CloudWatch namespace of the EMF metrics (`Switchboard/<stage>`, set by the CDK app); only used on AWS. */
  METRICS_NAMESPACE: text('Switchboard'),

  TABLE_NAME: z.string().check(z.minLength(1)),
  DYNAMODB_ENDPOINT: optionalUrl,
  EVENTS_QUEUE_URL: url,
  DLQ_URL: optionalUrl,
  SQS_ENDPOINT: optionalUrl,

  TEAM_NAME: text('Switchboard team'),
  TEAM_TIMEZONE: text('America/New_York'),
  PUBLIC_BASE_URL: z._default(url, 'http://127.0.0.1:3000'),

  ALLOWED_EMAIL_DOMAINS: csv(),
  ADMIN_EMAILS: csv(),
  CLERK_JWT_KEY: optional,
  CLERK_AUTHORIZED_PARTIES: csv(),
  CLERK_PUBLISHABLE_KEY: optional,
  CLERK_SECRET_KEY: optional,
  CLERK_API_URL: optionalUrl,
  DEV_AUTH_PRIVATE_KEY: optional,

  OPENPHONE_API_BASE: z._default(url, 'https://api.openphone.com'),
  OPENPHONE_API_KEY: optional,
  OPENPHONE_WEBHOOK_SECRET: optional,
  OPENPHONE_SHARED_NUMBER: optional,
  OPENPHONE_ASSISTANT_NUMBER: optional,

  GOOGLE_API_BASE: optionalUrl,
  GOOGLE_TOKEN_URL: optionalUrl,
  GOOGLE_SERVICE_ACCOUNT_JSON: optional,
  GOOGLE_IMPERSONATE_USER: optional,
  /** AWS only (set by the CDK stack): the pdf-text function that reads Drive PDFs, so pdf.js stays out of the worker (issue 16). */
  PDF_TEXT_FUNCTION: optional,
  GMAIL_GENERAL_QUERY: text('is:unread -category:promotions -from:notifications -from:leads'),
  GMAIL_LEADS_QUERY: text('from:leads'),
  /** The team's sent mail: a reply sent from Gmail withdraws the thread's waiting drafts (cards #18). */
  GMAIL_SENT_QUERY: text('in:sent'),
  EMAIL_BODY_LIMIT: int(4000),

  CLICKUP_API_BASE: z._default(url, 'https://api.clickup.com/api/v2'),
  CLICKUP_API_TOKEN: optional,
  CLICKUP_TEAM_ID: optional,

  TWILIO_API_BASE: optionalUrl,
  TWILIO_ACCOUNT_SID: optional,
  TWILIO_AUTH_TOKEN: optional,
  TWILIO_FROM_NUMBER: optional,
  ONCALL_NUMBERS: csv(),
  ONCALL_HOURS: text('00:00-24:00'),
  ESCALATION_REQUIRES_APPROVAL: z.pipe(
    oneOf(['true', 'false'], 'false'),
    z.transform((v: 'true' | 'false') => v === 'true'),
  ),
  /** Claude mode: the helper model reviews drafts and executions too, the rule reviewer as floor (cards #18). */
  MODEL_REVIEWERS: z.pipe(
    oneOf(['true', 'false'], 'true'),
    z.transform((v: 'true' | 'false') => v === 'true'),
  ),
  URGENT_KEYWORDS: csv(
    'flood,flooding,fire,smoke,gas leak,gas smell,smell gas,no heat,break-in,broken into,burst pipe,carbon monoxide,sparking',
  ),

  ANTHROPIC_API_KEY: optional,
  ANTHROPIC_BASE_URL: optionalUrl,
  ANTHROPIC_MODEL: text(DEFAULT_ANTHROPIC_MODEL),
  ANTHROPIC_HELPER_MODEL: text(DEFAULT_ANTHROPIC_HELPER_MODEL),

  WEB_ALLOWED_DOMAINS: csv(),

  /**
   * The live channel (issue 19): the WebSocket API's management endpoint the worker and API post changes to
   * (`https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`; locally the gateway), and the socket URL
   * the PWA opens (`wss://…`, or a path on the PWA's own origin such as `/live`). Absent: apps poll.
   */
  LIVE_ENDPOINT: optionalUrl,
  LIVE_SOCKET_URL: optional,

  VAPID_PUBLIC_KEY: optional,
  VAPID_PRIVATE_KEY: optional,
  VAPID_SUBJECT: text('mailto:ops@example.com'),

  MEMORY_GIT_URL: optional,
  MEMORY_GIT_TOKEN: optional,
  MEMORY_DIR: text('/tmp/switchboard-memory'),

  COOLDOWN_SECONDS: int(120),
  /**
   * A PWA chat turn runs in the streaming function (issue 19); its queued copy waits this long (SQS allows
   * ≤ 900 s) and then only picks up a turn that function did not finish. Longer than that function's timeout.
   */
  CHAT_BACKSTOP_DELAY_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(900)), 180),
  MAX_ITERATIONS: int(5),
  PENDING_INTENT_TTL_MINUTES: int(30),
  RUN_TOKEN_BUDGET: int(200_000),
  /**
   * How long an interrupted send (EXECUTING) is left to its own worker before a redelivery reconciles it with the
   * provider; at least the worker's timeout. Tests of a killed stack shorten it.
   */
  STALE_EXECUTING_SECONDS: int(360),

  // Research tasks (issue 21): budget per task, when a person reviews the plan, retries per step.
  RESEARCH_MAX_NODES: int(30),
  RESEARCH_MAX_TOKENS: int(200_000),
  RESEARCH_MAX_MINUTES: int(10),
  /** A plan with more steps than this (or any web/compute step) waits for a person's approval. */
  RESEARCH_REVIEW_ABOVE: int(6),
  RESEARCH_MAX_ATTEMPTS: int(3),
  /** How long a worker owns a claimed step; at least the worker's timeout, so a live worker is never overtaken. */
  RESEARCH_LEASE_SECONDS: int(360),

  // Timers (EventBridge Scheduler; locally its emulator) and what runs on them.
  SCHEDULER_ENDPOINT: optionalUrl,
  SCHEDULE_GROUP_NAME: text('default'),
  SCHEDULER_ROLE_ARN: optional,
  EVENTS_QUEUE_ARN: optional,
  /** The events queue's redrive maxReceiveCount: the worker's last attempt records the dead letter. */
  EVENTS_MAX_RECEIVE_COUNT: int(5),
  CARD_EXPIRY_MINUTES: int(24 * 60),
  /** One thread per person: a person's messages join their conversation if it moved within this many days. */
  THREAD_WINDOW_DAYS: int(14),
  URGENT_RENOTIFY_MINUTES: int(10),
  /** An approval in someone's conversation goes to them first, and to everyone after this long (issue 19). */
  APPROVAL_TEAM_DELAY_MINUTES: int(5),
  PAGE_BUDGET_PER_HOUR: int(6),
  PAGES_PER_SENDER_PER_HOUR: int(2),
  UNKNOWN_SENDER_PAGE_WINDOW_MINUTES: int(30),
});

export type Config = z.infer<typeof configSchema>;

/** Parses a plain environment map; the error names every missing or malformed variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  if (cleaned.STAGE === 'aws' && !cleaned.PUBLIC_BASE_URL) {
    // The local default would make every Clerk token and Twilio callback signature fail on AWS.
    throw new ConfigError(
      'Invalid configuration: PUBLIC_BASE_URL is unknown on AWS (the deployment sets it, or PUBLIC_BASE_URL_PARAMETER naming the SSM parameter that holds it)',
    );
  }
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
  // SECRETS_ARNS: this function's group secrets (comma-separated); SECRETS_ARN: one secret, as before.
  const arns = (env.SECRETS_ARNS ?? env.SECRETS_ARN ?? '').split(',').filter(Boolean);
  if (!arns.length || !fetchSecret) return parseConfig(env);
  const merged: Record<string, string> = {};
  for (const raw of await Promise.all(arns.map(fetchSecret))) {
    let secrets: unknown;
    try {
      secrets = JSON.parse(raw);
    } catch {
      throw new ConfigError('Invalid configuration: a secret in SECRETS_ARNS does not hold a JSON object');
    }
    const parsed = z.record(str, str).safeParse(secrets);
    if (!parsed.success) throw new ConfigError('Invalid configuration: secrets must map names to strings');
    Object.assign(merged, parsed.data);
  }
  return parseConfig({ ...env, ...merged });
}
