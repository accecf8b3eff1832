import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';
import { startClerkEmulator } from '../emulators/clerk';
import { startClickUpEmulator } from '../emulators/clickup';
import { startGitServer } from '../emulators/git-server';
import { startGoogleEmulator } from '../emulators/google';
import { startOpenPhoneEmulator } from '../emulators/openphone';
import { startPushService } from '../emulators/push-service';
import { DEMO_LINES, DEMO_PEOPLE, TEAM_DOMAIN } from '../emulators/seed/demo-team';
import { startTwilioEmulator } from '../emulators/twilio';

const LOCAL_TWILIO_FROM = '+14155550190';

export interface LocalSecrets {
  openPhoneApiKey: string;
  openPhoneWebhookSecret: string;
  twilioAccountSid: string;
  twilioAuthToken: string;
  clickUpToken: string;
  vapidPublicKey: string;
  vapidPrivateKey: string;
}

/**
 * Local secrets, made once and kept in the data folder so restarts keep push subscriptions valid. They
 * guard only the local emulators and never leave this machine.
 */
export function localSecrets(dataDir?: string): LocalSecrets {
  const file = dataDir ? join(dataDir, 'secrets.json') : undefined;
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as LocalSecrets;
  const vapid = webpush.generateVAPIDKeys();
  const secrets: LocalSecrets = {
    openPhoneApiKey: `op_local_${randomBytes(12).toString('hex')}`,
    openPhoneWebhookSecret: `whsec_${randomBytes(32).toString('base64')}`,
    twilioAccountSid: `AC${randomBytes(16).toString('hex')}`,
    twilioAuthToken: randomBytes(16).toString('hex'),
    clickUpToken: `pk_local_${randomBytes(12).toString('hex')}`,
    vapidPublicKey: vapid.publicKey,
    vapidPrivateKey: vapid.privateKey,
  };
  if (file && dataDir) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}

/**
 * Starts every vendor emulator on 127.0.0.1 and returns the environment that points the real clients at
 * them (only base URLs and credentials differ from production).
 */
export async function startEmulators(opts: {
  gatewayUrl: () => string;
  secrets: LocalSecrets;
  dataDir?: string;
  /** Extra OpenPhone emulator options (fault injection in tests, e.g. `holdSends`). */
  openphone?: { holdSends?: boolean; deliveredWebhooks?: 'legacy' | 'standard' };
  log: (l: string) => void;
}) {
  const s = opts.secrets;
  const stops: Array<() => Promise<void>> = [];
  const openphone = await startOpenPhoneEmulator({
    apiKey: s.openPhoneApiKey,
    webhookSecret: s.openPhoneWebhookSecret,
    get webhookUrl() {
      return `${opts.gatewayUrl()}/webhooks/openphone`;
    },
    // The workspace survives restarts (and a killed stack): .local/openphone.json.
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...opts.openphone,
  });
  stops.push(() => openphone.stop());
  const twilio = await startTwilioEmulator({
    accountSid: s.twilioAccountSid,
    authToken: s.twilioAuthToken,
    statusCallbackBase: undefined,
    // The from-number the local stack pages with is the account's own, as `npm run doctor` checks.
    incomingNumbers: [LOCAL_TWILIO_FROM],
  });
  stops.push(() => twilio.stop());
  const google = await startGoogleEmulator();
  stops.push(() => google.stop());
  const clickup = await startClickUpEmulator({ token: s.clickUpToken });
  stops.push(() => clickup.stop());
  // Clerk's users endpoint, so dev sessions are stock v2 tokens and the API looks emails up as in production.
  const clerk = await startClerkEmulator({
    users: DEMO_PEOPLE.filter((p) => p.internal).map((p) => ({
      email: p.email,
      firstName: p.firstName,
      lastName: p.lastName,
    })),
  });
  stops.push(() => clerk.stop());
  const push = await startPushService({ verbose: true, log: (l) => opts.log(`push-service: ${l}`) });
  stops.push(() => push.stop());
  const git = await startGitServer(opts.dataDir ? { root: join(opts.dataDir, 'git') } : {});
  stops.push(() => git.stop());
  const memoryUrl = existsSync(join(git.root, 'memory.git'))
    ? git.repoUrl('memory')
    : await git.createBareRepo('memory');

  const env: Record<string, string> = {
    OPENPHONE_API_BASE: openphone.url,
    OPENPHONE_API_KEY: s.openPhoneApiKey,
    OPENPHONE_WEBHOOK_SECRET: s.openPhoneWebhookSecret,
    OPENPHONE_SHARED_NUMBER: DEMO_LINES.shared.number,
    OPENPHONE_ASSISTANT_NUMBER: DEMO_LINES.assistant.number,
    TWILIO_API_BASE: twilio.url,
    TWILIO_ACCOUNT_SID: s.twilioAccountSid,
    TWILIO_AUTH_TOKEN: s.twilioAuthToken,
    TWILIO_FROM_NUMBER: LOCAL_TWILIO_FROM,
    ONCALL_NUMBERS: '+14155550103',
    GOOGLE_API_BASE: google.url,
    GOOGLE_TOKEN_URL: google.tokenUrl,
    GOOGLE_SERVICE_ACCOUNT_JSON: google.serviceAccountJson,
    GOOGLE_IMPERSONATE_USER: google.mailbox,
    CLICKUP_API_BASE: clickup.apiBase,
    CLICKUP_API_TOKEN: s.clickUpToken,
    CLICKUP_TEAM_ID: clickup.teamId,
    VAPID_PUBLIC_KEY: s.vapidPublicKey,
    VAPID_PRIVATE_KEY: s.vapidPrivateKey,
    VAPID_SUBJECT: `mailto:ops@${TEAM_DOMAIN}`,
    MEMORY_GIT_URL: memoryUrl,
    ALLOWED_EMAIL_DOMAINS: TEAM_DOMAIN,
    ADMIN_EMAILS: `alex@${TEAM_DOMAIN}`,
    TEAM_NAME: 'Oak Properties',
  };
  opts.log(`OpenPhone       ${openphone.url}`);
  opts.log(`Twilio          ${twilio.url}`);
  opts.log(`Google          ${google.url}`);
  opts.log(`ClickUp         ${clickup.url}`);
  opts.log(`Clerk (users)   ${clerk.url}`);
  opts.log(`Push service    ${push.url}`);
  opts.log(`Git (memory)    ${memoryUrl}`);
  return {
    env,
    openphone,
    twilio,
    google,
    clickup,
    clerk,
    push,
    git,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => {});
    },
  };
}
export type Emulators = Awaited<ReturnType<typeof startEmulators>>;
