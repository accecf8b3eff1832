import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gmail } from '@googleapis/gmail';
import { createMimeMessage } from 'mimetext';
import { z } from 'zod';
import { createGoogleAuth, GOOGLE_SCOPES } from '../shared/src/adapters/google/auth';
import { describeZodIssues, UpstreamError, ValidationError } from '../shared/src/errors';
import { type DmarcOutcome, gmailAuthenticationResults } from './emulators/google/auth-results';
import { type LocalRuntime, readLocalRuntime } from './simulate-sms';

/**
 * `npm run simulate:email -- --from tenant@mail.example [--name "Maria Lopez"] --subject "Leak"
 *    [--label CATEGORY_PROMOTIONS] [--dmarc pass|fail|none] [--source general|leads] "body"`
 *
 * Puts one email into the running stack's Gmail (the Google emulator) the way mail arrives in a real inbox —
 * Gmail's `users.messages.insert`, an RFC 822 message with the INBOX and UNREAD labels, through the same
 * client library and service-account delegation the system uses — then runs the email poll exactly as the
 * scheduler does: the `email-poll` handler invoked with the schedule's fixed input (shared/src/schedules.ts),
 * against the stack's DynamoDB, queue and Gmail from .local/runtime.json. Without `--source` both schedules
 * fire, as they would at a quarter past the hour; the leads poll skips itself outside 08:00–20:00 team time.
 */

export const simulateEmailInput = z.object({
  from: z.string().min(3).max(320).regex(/@/, '--from must be an email address'),
  to: z.string().min(3).max(320).optional(),
  subject: z.string().min(1, '--subject is required').max(998),
  text: z.string().min(1, 'the email body is required').max(100_000),
  source: z.enum(['general', 'leads']).optional(),
  /** The sender's display name ("Maria Lopez" <maria@…>); without it the From is the bare address. */
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^<>"\r\n]+$/, '--name cannot contain <, >, " or a newline')
    .optional(),
  /** Gmail label ids the mail is filed under besides INBOX and UNREAD (a category, or a user label). */
  labels: z
    .array(
      z
        .string()
        .regex(
          /^(CATEGORY_[A-Z]+|Label_\d+|STARRED|IMPORTANT)$/,
          '--label must be a Gmail label id such as CATEGORY_PROMOTIONS or Label_3',
        ),
    )
    .max(10)
    .optional(),
  /** Gmail's DMARC verdict for the From domain (default pass); `fail` simulates a forged team address. */
  dmarc: z.enum(['pass', 'fail', 'none']).optional(),
});
export type SimulateEmailInput = z.input<typeof simulateEmailInput>;

const runtimeEnv = z.object({
  GOOGLE_API_BASE: z.string().url(),
  GOOGLE_SERVICE_ACCOUNT_JSON: z.string().min(1),
  GOOGLE_IMPERSONATE_USER: z.string().min(3),
  GOOGLE_TOKEN_URL: z.string().url().optional(),
});

/** An RFC 822 message as a mail server would deliver it (its own Message-ID and Date). */
export function composeRawEmail(input: {
  from: string;
  name?: string;
  to: string;
  subject: string;
  text: string;
  date?: Date;
  dmarc?: DmarcOutcome;
}) {
  const msg = createMimeMessage();
  const address = (input.from.match(/<([^<>]+)>/)?.[1] ?? input.from).trim();
  // Inserted mail is stored as given (Gmail authenticates only what arrives by SMTP), so the header its
  // receiving server would have prepended is written here.
  msg.setHeader('Authentication-Results', gmailAuthenticationResults(address, input.dmarc ?? 'pass'));
  msg.setSender(input.name ? { name: input.name, addr: address } : input.from);
  msg.setTo(input.to);
  msg.setSubject(input.subject);
  msg.setHeader('Message-ID', `<${randomBytes(12).toString('hex')}@mail.example>`);
  msg.setHeader('Date', (input.date ?? new Date()).toUTCString());
  // base64, so a non-ASCII body is not sent as mislabelled "7bit" text.
  msg.addMessage({
    contentType: 'text/plain',
    data: Buffer.from(input.text, 'utf8').toString('base64'),
    encoding: 'base64',
  });
  return msg.asRaw();
}

/** Inserts the email into the stack's shared inbox; returns Gmail's ids for it. */
export async function insertEmail(runtime: LocalRuntime, input: SimulateEmailInput) {
  const parsed = simulateEmailInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeZodIssues(parsed.error.issues));
  const env = runtimeEnv.safeParse(runtime.env);
  if (!env.success) {
    throw new ValidationError(
      `runtime.json has no Google emulator settings (${describeZodIssues(env.error.issues)}); restart npm start`,
    );
  }
  const mailbox = env.data.GOOGLE_IMPERSONATE_USER;
  const client = gmail({
    version: 'v1',
    auth: createGoogleAuth({
      serviceAccount: env.data.GOOGLE_SERVICE_ACCOUNT_JSON,
      subject: mailbox,
      scopes: GOOGLE_SCOPES.gmail,
      ...(env.data.GOOGLE_TOKEN_URL ? { tokenUrl: env.data.GOOGLE_TOKEN_URL } : {}),
    }),
    rootUrl: `${env.data.GOOGLE_API_BASE.replace(/\/$/, '')}/`,
  });
  const raw = composeRawEmail({ ...parsed.data, to: parsed.data.to ?? mailbox });
  let data: unknown;
  try {
    // `raw` in the JSON body, not `media`: the client builds the /upload/ URL from a per-call rootUrl only,
    // so a media upload here would bypass the emulator and go to gmail.googleapis.com.
    const res = await client.users.messages.insert({
      userId: 'me',
      // As delivered mail: stamped with the time it arrived, unread in the inbox.
      internalDateSource: 'receivedTime',
      requestBody: {
        raw: Buffer.from(raw).toString('base64url'),
        labelIds: [
          'INBOX',
          'UNREAD',
          ...(parsed.data.labels?.some((l) => l.startsWith('CATEGORY_')) ? [] : ['CATEGORY_PERSONAL']),
          ...(parsed.data.labels ?? []),
        ],
      },
    });
    data = res.data;
  } catch (e) {
    const status = (e as { status?: number }).status;
    throw new UpstreamError(
      status === 404
        ? 'The Gmail emulator does not implement users.messages.insert (POST /gmail/v1/users/me/messages)'
        : `Gmail messages.insert failed: ${e instanceof Error ? e.message : String(e)}`,
      { retryable: false, cause: e },
    );
  }
  const ids = z.object({ id: z.string(), threadId: z.string() }).safeParse(data);
  if (!ids.success)
    throw new UpstreamError(`messages.insert answered ${JSON.stringify(data)}`, { retryable: false });
  return ids.data;
}

/** The scheduler's invocation: the same handler module, the same fixed input, in this process. */
export async function triggerPoll(runtime: LocalRuntime, source: 'general' | 'leads') {
  Object.assign(process.env, runtime.env);
  const { handler } = await import('../functions/email-poll');
  return handler({ source });
}

async function main(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      subject: { type: 'string' },
      source: { type: 'string' },
      name: { type: 'string' },
      label: { type: 'string', multiple: true },
      dmarc: { type: 'string' },
      runtime: { type: 'string' },
    },
    allowPositionals: true,
  });
  const runtime = readLocalRuntime(values.runtime);
  const input: SimulateEmailInput = {
    from: values.from ?? '',
    subject: values.subject ?? '',
    text: positionals.join(' '),
    ...(values.to ? { to: values.to } : {}),
    ...(values.source ? { source: values.source as 'general' | 'leads' } : {}),
    ...(values.name ? { name: values.name } : {}),
    ...(values.label?.length ? { labels: values.label } : {}),
    ...(values.dmarc ? { dmarc: values.dmarc as 'pass' | 'fail' | 'none' } : {}),
  };
  const inserted = await insertEmail(runtime, input);
  console.log(`Inserted into the inbox: message ${inserted.id} (thread ${inserted.threadId})`);
  for (const source of input.source ? [input.source] : (['general', 'leads'] as const)) {
    const result = await triggerPoll(runtime, source);
    console.log(`email-poll { source: '${source}' } → ${JSON.stringify(result)}`);
  }
  // The poll's SDK clients keep sockets open; this is a one-shot command.
  process.exit(process.exitCode ?? 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : String(e));
    if (e instanceof ValidationError) {
      console.error(
        'usage: npm run simulate:email -- --from someone@mail.example [--name "Display Name"] --subject "…" [--label CATEGORY_PROMOTIONS] [--dmarc pass|fail|none] [--source general|leads] "body"',
      );
    }
    process.exit(2);
  });
}
