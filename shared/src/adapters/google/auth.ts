import { JWT } from 'google-auth-library';
import { z } from 'zod';
import { ConfigError, describeZodIssues } from '../../errors';

/**
 * Service-account credentials with domain-wide delegation: the service account signs a JWT assertion whose
 * `sub` is the Workspace user it acts as (the shared inbox), and exchanges it for an access token.
 *
 * The token URL is configurable so the same code runs against the local emulator. google-auth-library 11
 * hard-codes `https://oauth2.googleapis.com/token` in its token request (gtoken/getToken.js) and ignores the
 * key file's `token_uri`, so we re-point that one request with a request interceptor on the client's own
 * transporter. The assertion's `aud` stays Google's token URL, as Google requires; the emulator accepts it.
 */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export const GOOGLE_SCOPES = {
  gmail: ['https://www.googleapis.com/auth/gmail.modify'],
  calendar: ['https://www.googleapis.com/auth/calendar.events'],
  drive: [
    'https://www.googleapis.com/auth/drive.readonly',
    'https://www.googleapis.com/auth/documents.readonly',
    'https://www.googleapis.com/auth/spreadsheets.readonly',
  ],
} as const;

export const ALL_GOOGLE_SCOPES: string[] = [
  ...GOOGLE_SCOPES.gmail,
  ...GOOGLE_SCOPES.calendar,
  ...GOOGLE_SCOPES.drive,
];

export const serviceAccountKeySchema = z.looseObject({
  type: z.literal('service_account'),
  client_email: z.email(),
  private_key: z.string().includes('PRIVATE KEY'),
  private_key_id: z.string().optional(),
  token_uri: z.url().optional(),
});

export type ServiceAccountKeyJson = z.infer<typeof serviceAccountKeySchema>;

export interface GoogleAuthOptions {
  /** The key file JSON (string or parsed), e.g. `GOOGLE_SERVICE_ACCOUNT_JSON`. */
  serviceAccount: string | ServiceAccountKeyJson;
  /** The Workspace user to impersonate (`GOOGLE_IMPERSONATE_USER`). */
  subject: string;
  scopes?: readonly string[];
  /** Overrides the key's `token_uri` (`GOOGLE_TOKEN_URL`); production leaves both unset or Google's. */
  tokenUrl?: string;
}

export function parseServiceAccount(input: string | ServiceAccountKeyJson): ServiceAccountKeyJson {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch {
      throw new ConfigError('GOOGLE_SERVICE_ACCOUNT_JSON is not valid JSON');
    }
  }
  const parsed = serviceAccountKeySchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      `GOOGLE_SERVICE_ACCOUNT_JSON is not a service account key: ${describeZodIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data;
}

/** One JWT client per cold start; it caches the access token and refreshes it before expiry. */
export function createGoogleAuth(opts: GoogleAuthOptions): JWT {
  const key = parseServiceAccount(opts.serviceAccount);
  if (!opts.subject) throw new ConfigError('GOOGLE_IMPERSONATE_USER is required for domain-wide delegation');
  const jwt = new JWT({
    email: key.client_email,
    key: key.private_key,
    keyId: key.private_key_id,
    subject: opts.subject,
    // Scopes must be set: without them the client signs self-issued JWTs instead of exchanging a token,
    // and domain-wide delegation needs the exchange.
    scopes: [...(opts.scopes ?? ALL_GOOGLE_SCOPES)],
  });
  const tokenUrl = opts.tokenUrl ?? key.token_uri ?? GOOGLE_TOKEN_URL;
  if (tokenUrl !== GOOGLE_TOKEN_URL) {
    const target = new URL(tokenUrl);
    jwt.transporter.interceptors.request.add({
      resolved: async (config) => {
        if (config.url.href === GOOGLE_TOKEN_URL) config.url = target;
        return config;
      },
    });
  }
  return jwt;
}
