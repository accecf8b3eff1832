/**
 * Which secrets each function group may read on AWS: one Secrets Manager secret per group, each function
 * granted only its groups' secrets (least privilege: the webhooks cannot read the Google delegation key).
 * A variable in two groups (TWILIO_AUTH_TOKEN signs status callbacks and pages) is written to both by
 * `npm run secrets:put`.
 */
export const SECRET_GROUPS = {
  /** Signing secrets that verify inbound webhooks. */
  ingress: ['OPENPHONE_WEBHOOK_SECRET', 'TWILIO_AUTH_TOKEN'],
  /** The worker's vendor keys (and the Gmail poll, which reads with the same Google key). */
  worker: [
    'OPENPHONE_API_KEY',
    'GOOGLE_SERVICE_ACCOUNT_JSON',
    'CLICKUP_API_TOKEN',
    'ANTHROPIC_API_KEY',
    'VAPID_PRIVATE_KEY',
    'MEMORY_GIT_TOKEN',
  ],
  /** The API: sessions, push, the memory editor, OpenPhone for decision-time checks and the media proxy. */
  api: ['CLERK_JWT_KEY', 'CLERK_SECRET_KEY', 'VAPID_PRIVATE_KEY', 'MEMORY_GIT_TOKEN', 'OPENPHONE_API_KEY'],
  /** Paging the on-call person by SMS/voice. */
  paging: ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN'],
  /** The alarm push (SNS → admins' devices): only the VAPID key that signs pushes. */
  alarm: ['VAPID_PRIVATE_KEY'],
} as const satisfies Record<string, readonly string[]>;

export type SecretGroup = keyof typeof SECRET_GROUPS;
export const SECRET_GROUP_NAMES = Object.keys(SECRET_GROUPS) as SecretGroup[];
