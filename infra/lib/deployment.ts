import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const count = (def: number) => z.coerce.number().int().min(1).max(1000).default(def);

/**
 * How one deployment (a stage) is shaped: its name, its public address, its limits and who hears its alarms.
 * Read from the deploying shell (`npm run deploy -- --stage prod` sets STAGE); every value is validated here
 * so a typo fails synth with the variable's name instead of deploying something half-configured.
 */
export const deploymentSchema = z
  .object({
    STAGE: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,15}$/, 'a short lower-case name such as dev or prod')
      .default('dev'),
    /** The PWA's own host name (e.g. app.oakproperties.com); unset → the CloudFront domain. */
    DOMAIN_NAME: z
      .string()
      .regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'a host name such as app.example.com')
      .optional(),
    /** ACM certificate for DOMAIN_NAME in us-east-1 (CloudFront only takes certificates from there). */
    CERTIFICATE_ARN: z.string().startsWith('arn:').optional(),
    /** ACM certificate for DOMAIN_NAME in the stack's region (the HTTP API's own custom domain). */
    API_CERTIFICATE_ARN: z.string().startsWith('arn:').optional(),
    /** Where alarm e-mails go (an SNS e-mail subscription; the address confirms it once). */
    ALARM_EMAIL: z.string().email().optional(),
    /** The AWS WAF web ACL in front of CloudFront; on by default for prod. */
    WAF: flag.optional(),
    /** Requests per 5 minutes one IP may send to /webhooks/* before WAF blocks it. */
    WAF_WEBHOOK_RATE_LIMIT: z.coerce.number().int().min(10).max(2_000_000_000).default(300),
    /** Reserved concurrency of the request/response API function (a 5–50 person team needs few). */
    API_CONCURRENCY: count(10),
    /** Reserved concurrency of the streaming chat function (one live turn per person typing). */
    CHAT_CONCURRENCY: count(5),
    /** Reserved concurrency of each webhook function (OpenPhone, Twilio status). */
    WEBHOOK_CONCURRENCY: count(5),
    /** How many worker instances the queue may drive at once (the event source's maxConcurrency, ≥ 2). */
    WORKER_CONCURRENCY: z.coerce.number().int().min(2).max(1000).default(5),
    /** HTTP API steady-state requests per second and burst, across all routes. */
    API_RATE_LIMIT: count(25),
    API_BURST_LIMIT: count(50),
  })
  .superRefine((d, ctx) => {
    if (d.DOMAIN_NAME && !d.CERTIFICATE_ARN) {
      ctx.addIssue({
        code: 'custom',
        path: ['CERTIFICATE_ARN'],
        message: `DOMAIN_NAME=${d.DOMAIN_NAME} needs CERTIFICATE_ARN (an ACM certificate for it in us-east-1)`,
      });
    }
    if (!d.DOMAIN_NAME && (d.CERTIFICATE_ARN || d.API_CERTIFICATE_ARN)) {
      ctx.addIssue({
        code: 'custom',
        path: ['DOMAIN_NAME'],
        message: 'a certificate was given without DOMAIN_NAME, the host name it is for',
      });
    }
  });

export type Deployment = z.infer<typeof deploymentSchema> & { waf: boolean };

/** Validates the deployment settings; the error names each bad variable and says what it should hold. */
export function parseDeployment(env: Record<string, string | undefined>): Deployment {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  if (cleaned.PUBLIC_BASE_URL) {
    throw new Error(
      'PUBLIC_BASE_URL is taken from the deployment itself: set DOMAIN_NAME (with CERTIFICATE_ARN) for a custom domain, or leave both unset to use the CloudFront domain; do not set PUBLIC_BASE_URL for a deploy.',
    );
  }
  const result = deploymentSchema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid deployment settings: ${lines}`);
  }
  return { ...result.data, waf: result.data.WAF ?? result.data.STAGE === 'prod' };
}

/** The stack name prefix, so a dev and a prod can live in one account side by side. */
export const stackName = (d: Pick<Deployment, 'STAGE'>, part: string) => `Switchboard-${d.STAGE}-${part}`;
