import { createECDH } from 'node:crypto';
import * as fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createClerkClient } from '@clerk/backend';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { googleGroupGates } from '../../shared/src/adapters/google/tool-groups';
import { quoRateLimiter } from '../../shared/src/adapters/openphone-http';
import {
  type Config,
  DEFAULT_ANTHROPIC_HELPER_MODEL,
  DEFAULT_ANTHROPIC_MODEL,
} from '../../shared/src/config';
import { modelState } from '../../shared/src/domain/model-lifecycle';
import { isAppError } from '../../shared/src/errors';

/**
 * One read-only check per vendor (issue 13, `npm run doctor`). Each answers rows of {check, result, fix};
 * `fail` is blocking (exit 1), `warn` is worth fixing, `skip` means not configured. Nothing is written
 * anywhere except the memory repository's scratch ref, which is pushed and deleted at once.
 */
export type Result = 'ok' | 'warn' | 'fail' | 'skip';
export interface Row {
  check: string;
  result: Result;
  detail: string;
  fix?: string;
}

export interface CheckContext {
  config: Config;
  now: Date;
  fetch?: typeof fetch;
}

const row = (check: string, result: Result, detail: string, fix?: string): Row => ({
  check,
  result,
  detail,
  ...(fix ? { fix } : {}),
});
const errText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 200);

export async function checkAnthropic({ config: c, now }: CheckContext): Promise<Row[]> {
  if (!c.ANTHROPIC_API_KEY) return [row('Anthropic', 'skip', 'no ANTHROPIC_API_KEY: rules mode')];
  const client = new Anthropic({
    apiKey: c.ANTHROPIC_API_KEY,
    ...(c.ANTHROPIC_BASE_URL ? { baseURL: c.ANTHROPIC_BASE_URL } : {}),
    maxRetries: 1,
  });
  const models: Array<[string, string, string]> = [
    ['ANTHROPIC_MODEL', c.ANTHROPIC_MODEL, DEFAULT_ANTHROPIC_MODEL],
    ['ANTHROPIC_HELPER_MODEL', c.ANTHROPIC_HELPER_MODEL, DEFAULT_ANTHROPIC_HELPER_MODEL],
  ];
  return Promise.all(
    models.map(async ([setting, model, fallback]) => {
      const name = `Anthropic ${setting}`;
      const s = modelState(model, now);
      const fix = `set ${setting}=${fallback} (or remove it for the default)`;
      if (s.state === 'retired')
        return row(name, 'fail', `${model} reached end of life on ${s.endOfLife}`, fix);
      try {
        await client.models.retrieve(model);
      } catch (e) {
        const status = e instanceof Anthropic.APIError ? e.status : undefined;
        if (status === 401)
          return row(name, 'fail', 'the API key was refused (401)', 'check ANTHROPIC_API_KEY');
        if (status === 404) return row(name, 'fail', `${model} is not served`, fix);
        return row(name, 'warn', `could not ask Anthropic: ${errText(e)}`, 'retry; check network access');
      }
      if (s.state === 'deprecated')
        return row(name, 'warn', `${model} served; end of life ${s.endOfLife} (${s.daysLeft} days)`, fix);
      if (s.state === 'unknown')
        return row(name, 'warn', `${model} served but not in the installed SDK's list`, 'check the name');
      return row(name, 'ok', `${model} served, not deprecated`);
    }),
  );
}

export async function checkClerk({ config: c }: CheckContext): Promise<Row[]> {
  if (!c.CLERK_JWT_KEY)
    return [
      row('Clerk', 'fail', 'no CLERK_JWT_KEY: no session can be verified', 'set the instance PEM public key'),
    ];
  if (!c.CLERK_SECRET_KEY) {
    return [
      row(
        'Clerk session email',
        'warn',
        'no CLERK_SECRET_KEY: only tokens with `email` + `email_verified` claims are accepted',
        'set CLERK_SECRET_KEY (stock Clerk tokens carry no email) or customise the session token',
      ),
    ];
  }
  const clerk = createClerkClient({
    secretKey: c.CLERK_SECRET_KEY,
    ...(c.CLERK_API_URL ? { apiUrl: c.CLERK_API_URL } : {}),
  });
  try {
    await clerk.users.getUserList({ limit: 1 });
  } catch (e) {
    const status = (e as { status?: number }).status;
    return [
      row(
        'Clerk secret key',
        'fail',
        status === 401
          ? 'the Backend API refused CLERK_SECRET_KEY (401)'
          : `Backend API unreachable: ${errText(e)}`,
        'set CLERK_SECRET_KEY to the instance secret key (sk_…)',
      ),
    ];
  }
  return [
    row('Clerk secret key', 'ok', 'Backend API accepts the key'),
    row('Clerk session email', 'ok', 'tokens without an email claim are looked up (primary verified email)'),
  ];
}

export async function checkGoogle({ config: c }: CheckContext): Promise<Row[]> {
  if (!c.GOOGLE_SERVICE_ACCOUNT_JSON || !c.GOOGLE_IMPERSONATE_USER)
    return [row('Google', 'skip', 'not configured')];
  let gates: ReturnType<typeof googleGroupGates>;
  try {
    gates = googleGroupGates(c);
  } catch (e) {
    return [row('Google', 'fail', errText(e), 'fix GOOGLE_SERVICE_ACCOUNT_JSON / GOOGLE_IMPERSONATE_USER')];
  }
  return Promise.all(
    Object.values(gates).map(async (gate) => {
      const name = gate.label.startsWith('Google') ? gate.label : `Google ${gate.label}`;
      try {
        await gate.check();
        return row(name, 'ok', 'scopes delegated');
      } catch (e) {
        if (isAppError(e) && e.code === 'integration_disabled')
          return row(
            `Google ${gate.label}`,
            'warn',
            'scope not delegated: this group is switched off',
            e.message.split('. ').slice(0, 1).join(''),
          );
        return row(
          `Google ${gate.label}`,
          'fail',
          errText(e),
          'check the service account key and the impersonated user',
        );
      }
    }),
  );
}

export async function checkClickUp({ config: c, fetch: f = fetch }: CheckContext): Promise<Row[]> {
  if (!c.CLICKUP_API_TOKEN || !c.CLICKUP_TEAM_ID) return [row('ClickUp', 'skip', 'not configured')];
  try {
    const res = await f(`${c.CLICKUP_API_BASE.replace(/\/+$/, '')}/team`, {
      headers: { authorization: c.CLICKUP_API_TOKEN },
    });
    if (res.status === 401)
      return [row('ClickUp', 'fail', 'the token was refused (401)', 'set CLICKUP_API_TOKEN')];
    if (!res.ok)
      return [row('ClickUp', 'fail', `GET /team answered ${res.status}`, 'check CLICKUP_API_BASE')];
    const teams = ((await res.json()) as { teams?: Array<{ id: string; name: string }> }).teams ?? [];
    const team = teams.find((t) => t.id === c.CLICKUP_TEAM_ID);
    if (!team)
      return [
        row(
          'ClickUp',
          'fail',
          `team ${c.CLICKUP_TEAM_ID} is not among the token's teams`,
          `set CLICKUP_TEAM_ID to one of: ${teams.map((t) => t.id).join(', ')}`,
        ),
      ];
    return [row('ClickUp', 'ok', `token valid, team “${team.name}”`)];
  } catch (e) {
    return [
      row('ClickUp', 'fail', `unreachable: ${errText(e)}`, 'check CLICKUP_API_BASE and network access'),
    ];
  }
}

export async function checkQuo({ config: c, fetch: f = fetch }: CheckContext): Promise<Row[]> {
  if (!c.OPENPHONE_API_KEY) return [row('Quo', 'skip', 'not configured')];
  const base = c.OPENPHONE_API_BASE.replace(/\/+$/, '');
  // Quo answers 429 past 10 requests a second per key; the doctor waits its turn like the agent does.
  const limiter = quoRateLimiter(base, c.OPENPHONE_API_KEY);
  const get = async (path: string, headers: Record<string, string> = {}) => {
    // Another process on the same key can still spend the second's budget: a 429 is retried once the next
    // second opens ("until the next second's budget opens up"; Quo documents no Retry-After).
    for (let attempt = 0; ; attempt++) {
      await limiter.acquire();
      const res = await f(`${base}${path}`, {
        headers: { authorization: c.OPENPHONE_API_KEY ?? '', ...headers },
      });
      if (res.status !== 429 || attempt === 2) return res;
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  try {
    const numbers = await get('/v1/phone-numbers');
    if (numbers.status === 401)
      return [row('Quo API key', 'fail', 'the key was refused (401)', 'set OPENPHONE_API_KEY')];
    const rows = [
      row('Quo API key', numbers.ok ? 'ok' : 'fail', `GET /v1/phone-numbers → ${numbers.status}`),
    ];
    const line = numbers.ok ? lineOf(await numbers.json(), c.OPENPHONE_SHARED_NUMBER) : undefined;
    const url = `${c.PUBLIC_BASE_URL.replace(/\/+$/, '')}/webhooks/openphone`;
    const lists = await listQuoWebhooks(get);
    rows.push(quoWebhookRow(lists, { url, line, secret: c.OPENPHONE_WEBHOOK_SECRET }));
    return rows;
  } catch (e) {
    return [row('Quo', 'fail', `unreachable: ${errText(e)}`, 'check OPENPHONE_API_BASE and network access')];
  }
}

/** The webhook Switchboard reads 2026-03-30 bodies of (openphone-payloads.ts parses this version only). */
export const QUO_WEBHOOK_VERSION = '2026-03-30';

interface QuoHook {
  generation: 'legacy' | typeof QUO_WEBHOOK_VERSION;
  id?: string;
  url?: string;
  events?: string[];
  status?: string;
  resourceIds?: string[];
  apiVersion?: string;
}
type HookList = { ok: true; hooks: QuoHook[] } | { ok: false; status: number };

/**
 * Both webhook generations, which Quo lists separately: legacy ones under `GET /v1/webhooks`
 * (listWebhooks_v1, signed `openphone-signature`, no version field) and 2026-03-30 ones under `GET /webhooks`
 * with the version header (signed `webhook-signature`, each pinned to the `apiVersion` it was created with).
 */
async function listQuoWebhooks(get: (path: string, headers?: Record<string, string>) => Promise<Response>) {
  const read = async (res: Response, generation: QuoHook['generation']): Promise<HookList> => {
    if (!res.ok) return { ok: false, status: res.status };
    const data = ((await res.json()) as { data?: Omit<QuoHook, 'generation'>[] }).data ?? [];
    return { ok: true, hooks: data.map((h) => ({ ...h, generation })) };
  };
  const [legacy, dated] = await Promise.all([
    get('/v1/webhooks').then((r) => read(r, 'legacy')),
    get('/webhooks', { 'x-quo-api-version': QUO_WEBHOOK_VERSION }).then((r) => read(r, QUO_WEBHOOK_VERSION)),
  ]);
  return { legacy, dated };
}

/** Our line's phone-number id (`PN…`), to check a webhook's resourceIds filter; undefined when unknown. */
function lineOf(body: unknown, number: string | undefined): { id: string; number: string } | undefined {
  if (!number) return undefined;
  const lines = (body as { data?: Array<{ id?: string; number?: string }> }).data ?? [];
  const found = lines.find((l) => l.number === number);
  return found?.id ? { id: found.id, number } : undefined;
}

const describeHook = (h: QuoHook) =>
  h.generation === 'legacy'
    ? 'legacy webhook, openphone-signature'
    : `${h.apiVersion ?? 'unknown-version'} webhook, webhook-signature`;

function quoWebhookRow(
  lists: { legacy: HookList; dated: HookList },
  ctx: { url: string; line?: { id: string; number: string }; secret?: string },
): Row {
  const { url } = ctx;
  if (!lists.legacy.ok && !lists.dated.ok)
    return row(
      'Quo webhook',
      'warn',
      `could not list webhooks (GET /v1/webhooks → ${lists.legacy.status}, GET /webhooks → ${lists.dated.status})`,
      'check in Quo that message.received points at our URL',
    );
  const all = [...(lists.legacy.ok ? lists.legacy.hooks : []), ...(lists.dated.ok ? lists.dated.hooks : [])];
  const ours = all.filter((h) => h.url === url && (h.events ?? []).includes('message.received'));
  const enabled = ours.filter((h) => h.status === undefined || h.status === 'enabled');
  if (ours.length === 0) return noQuoWebhookRow(url);
  if (enabled.length === 0) {
    const off = ours[0] as QuoHook;
    const fix =
      off.generation === 'legacy'
        ? 'enable it in Quo'
        : `enable it: PATCH /webhooks/${off.id} {"status":"enabled"} with x-quo-api-version: ${QUO_WEBHOOK_VERSION}`;
    return row(
      'Quo webhook',
      'fail',
      `message.received → ${url} is ${off.status} (${describeHook(off)})`,
      fix,
    );
  }
  if (enabled.length > 1)
    return row(
      'Quo webhook',
      'warn',
      `${enabled.length} webhooks send message.received to ${url} (${enabled.map(describeHook).join('; ')}): each text arrives ${enabled.length} times, and only the one whose key is OPENPHONE_WEBHOOK_SECRET verifies — Quo retries the others' 401s for ~27 h`,
      'keep one: delete or disable the others',
    );
  return oneQuoWebhookRow(enabled[0] as QuoHook, ctx);
}

function noQuoWebhookRow(url: string): Row {
  return row(
    'Quo webhook',
    'fail',
    `no message.received webhook points at ${url} (neither GET /v1/webhooks nor GET /webhooks lists one)`,
    `create one: POST /webhooks with x-quo-api-version: ${QUO_WEBHOOK_VERSION}, {"url":"${url}","events":["message.received","message.delivered"]}, and put its whsec_ key in OPENPHONE_WEBHOOK_SECRET (or create one in Quo for message.received → ${url})`,
  );
}

/** The one enabled webhook: a version we parse, a filter that lets our line through, a key that can match. */
function oneQuoWebhookRow(
  hook: QuoHook,
  ctx: { url: string; line?: { id: string; number: string }; secret?: string },
): Row {
  const where = `message.received → ${ctx.url}`;
  if (hook.generation !== 'legacy' && hook.apiVersion !== QUO_WEBHOOK_VERSION)
    return row(
      'Quo webhook',
      'fail',
      `${where} is pinned to API version ${hook.apiVersion}; Switchboard reads ${QUO_WEBHOOK_VERSION} bodies`,
      `create a webhook with x-quo-api-version: ${QUO_WEBHOOK_VERSION} (a webhook's version never changes), update OPENPHONE_WEBHOOK_SECRET, then delete ${hook.id}`,
    );
  const ids = hook.resourceIds ?? [];
  if (ctx.line && ids.length > 0 && !ids.includes('*') && !ids.includes(ctx.line.id))
    return row(
      'Quo webhook',
      'fail',
      `${where} is limited to ${ids.join(', ')}, not our line ${ctx.line.number} (${ctx.line.id})`,
      `add ${ctx.line.id} to the webhook's resourceIds (or use ["*"])`,
    );
  if (hook.generation !== 'legacy' && ctx.secret && !ctx.secret.trim().startsWith('whsec_'))
    return row(
      'Quo webhook',
      'warn',
      `${where} (${describeHook(hook)}), but OPENPHONE_WEBHOOK_SECRET has no whsec_ prefix: a ${QUO_WEBHOOK_VERSION} webhook's key always has one`,
      'set OPENPHONE_WEBHOOK_SECRET to the key POST /webhooks (or POST /webhooks/:id/rotate) returned',
    );
  return row('Quo webhook', 'ok', `${where} (${describeHook(hook)})`);
}

export async function checkTwilio({ config: c, fetch: f = fetch }: CheckContext): Promise<Row[]> {
  if (!c.TWILIO_ACCOUNT_SID || !c.TWILIO_AUTH_TOKEN) return [row('Twilio', 'skip', 'not configured')];
  const base = `${(c.TWILIO_API_BASE ?? 'https://api.twilio.com').replace(/\/+$/, '')}/2010-04-01/Accounts/${c.TWILIO_ACCOUNT_SID}`;
  const auth = `Basic ${Buffer.from(`${c.TWILIO_ACCOUNT_SID}:${c.TWILIO_AUTH_TOKEN}`).toString('base64')}`;
  try {
    const from = c.TWILIO_FROM_NUMBER ?? '';
    const res = await f(`${base}/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(from)}`, {
      headers: { authorization: auth },
    });
    if (res.status === 401)
      return [
        row('Twilio', 'fail', 'credentials refused (401)', 'set TWILIO_ACCOUNT_SID / TWILIO_AUTH_TOKEN'),
      ];
    if (!res.ok)
      return [
        row('Twilio credentials', 'ok', 'accepted'),
        row(
          'Twilio from-number',
          'warn',
          `could not list numbers (${res.status})`,
          `check that ${from} belongs to the account`,
        ),
      ];
    const owned =
      ((await res.json()) as { incoming_phone_numbers?: Array<{ phone_number: string }> })
        .incoming_phone_numbers ?? [];
    return [
      row('Twilio credentials', 'ok', 'accepted'),
      owned.some((n) => n.phone_number === from)
        ? row('Twilio from-number', 'ok', `${from} is on the account`)
        : row(
            'Twilio from-number',
            'fail',
            `${from || '(none)'} is not a number of this account`,
            'set TWILIO_FROM_NUMBER',
          ),
    ];
  } catch (e) {
    return [row('Twilio', 'fail', `unreachable: ${errText(e)}`, 'check TWILIO_API_BASE and network access')];
  }
}

/** The VAPID public key must be the private key's own (P-256, base64url). */
export async function checkVapid({ config: c }: CheckContext): Promise<Row[]> {
  if (!c.VAPID_PUBLIC_KEY || !c.VAPID_PRIVATE_KEY) return [row('VAPID', 'skip', 'push not configured')];
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(c.VAPID_PRIVATE_KEY, 'base64url'));
    const derived = ecdh.getPublicKey().toString('base64url');
    return derived === c.VAPID_PUBLIC_KEY
      ? [row('VAPID pair', 'ok', 'public key matches the private key')]
      : [
          row(
            'VAPID pair',
            'fail',
            'VAPID_PUBLIC_KEY is not the private key’s public half',
            'run `npm run vapid:keys` and set both',
          ),
        ];
  } catch (e) {
    return [
      row(
        'VAPID pair',
        'fail',
        `VAPID_PRIVATE_KEY unreadable: ${errText(e)}`,
        'run `npm run vapid:keys` and set both',
      ),
    ];
  }
}

/**
 * Reachable (the remote's refs are listed) and writable: a one-commit scratch branch made in a temporary
 * folder is pushed and deleted at once — nothing else is written to the repository.
 */
export async function checkMemory({ config: c, now }: CheckContext): Promise<Row[]> {
  if (!c.MEMORY_GIT_URL) return [row('Memory repo', 'skip', 'not configured')];
  const url = c.MEMORY_GIT_URL;
  const onAuth = c.MEMORY_GIT_TOKEN
    ? () => ({ username: 'x-access-token', password: c.MEMORY_GIT_TOKEN })
    : undefined;
  const remote = { http, url, ...(onAuth ? { onAuth } : {}) };
  try {
    await git.getRemoteInfo(remote);
  } catch (e) {
    return [
      row('Memory repo', 'fail', `not reachable: ${errText(e)}`, 'check MEMORY_GIT_URL and MEMORY_GIT_TOKEN'),
    ];
  }
  const dir = await mkdtemp(join(tmpdir(), 'doctor-memory-'));
  const scratch = `refs/heads/doctor-scratch-${now.getTime().toString(36)}`;
  try {
    await git.init({ fs, dir, defaultBranch: 'doctor' });
    const author = {
      name: 'switchboard doctor',
      email: 'doctor@switchboard.invalid',
      timestamp: Math.floor(now.getTime() / 1000),
      timezoneOffset: 0,
    };
    await git.commit({ fs, dir, message: 'doctor: write check (deleted at once)', author });
    await git.push({ fs, dir, ...remote, ref: 'doctor', remoteRef: scratch });
    await git.push({ fs, dir, ...remote, ref: 'doctor', remoteRef: scratch, delete: true });
    return [row('Memory repo', 'ok', 'reachable and writable (scratch ref pushed and deleted)')];
  } catch (e) {
    return [
      row(
        'Memory repo',
        'fail',
        `reachable but not writable: ${errText(e)}`,
        'give MEMORY_GIT_TOKEN push access',
      ),
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
