import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { devUserId } from '../../shared/src/auth/dev-session';

/**
 * The slice of Clerk's Backend API (https://api.clerk.com/v1) the API and `npm run doctor` use, as
 * @clerk/backend's client calls it: GET /v1/users/{id}, GET /v1/users?email_address=… (+ /count), POST /v1/users.
 * Bodies follow the SDK's `UserJSON` / `EmailAddressJSON` (excerpts and sources in
 * test/contracts/vendor/clerk/). Auth is `Authorization: Bearer sk_…`; anything else is Clerk's 401 body.
 *
 *   const clerk = await startClerkEmulator({ secretKey: 'sk_test_x' });
 *   const id = clerk.addUser({ email: 'sam@oak.example', verified: false });
 */

export interface ClerkUserSeed {
  email: string;
  firstName?: string;
  lastName?: string;
  /** Default true (what POST /v1/users creates). */
  verified?: boolean;
  id?: string;
}

export interface ClerkEmulator {
  url: string;
  secretKey: string;
  addUser(seed: ClerkUserSeed): string;
  setVerified(userId: string, verified: boolean): void;
  /** Every request the emulator answered (method, path, status). */
  readonly requests: ReadonlyArray<{ method: string; path: string; status: number }>;
  stop(): Promise<void>;
}

interface StoredUser {
  id: string;
  email: string;
  emailId: string;
  firstName: string | null;
  lastName: string | null;
  verified: boolean;
  createdAt: number;
}

function userJson(u: StoredUser) {
  return {
    object: 'user',
    id: u.id,
    username: null,
    first_name: u.firstName,
    last_name: u.lastName,
    image_url: '',
    has_image: false,
    primary_email_address_id: u.emailId,
    primary_phone_number_id: null,
    primary_web3_wallet_id: null,
    password_enabled: false,
    two_factor_enabled: false,
    totp_enabled: false,
    backup_code_enabled: false,
    email_addresses: [
      {
        object: 'email_address',
        id: u.emailId,
        email_address: u.email,
        reserved: false,
        verification: u.verified
          ? {
              object: 'verification_email_code',
              status: 'verified',
              strategy: 'email_code',
              attempts: 1,
              expire_at: null,
            }
          : {
              object: 'verification_email_code',
              status: 'unverified',
              strategy: 'email_code',
              attempts: 0,
              expire_at: null,
            },
        linked_to: [],
        created_at: u.createdAt,
        updated_at: u.createdAt,
      },
    ],
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    enterprise_accounts: [],
    organization_memberships: null,
    public_metadata: {},
    private_metadata: {},
    unsafe_metadata: {},
    external_id: null,
    last_sign_in_at: null,
    banned: false,
    locked: false,
    deprovisioned: false,
    lockout_expires_in_seconds: null,
    verification_attempts_remaining: null,
    created_at: u.createdAt,
    updated_at: u.createdAt,
    last_active_at: null,
    create_organization_enabled: true,
    create_organizations_limit: null,
    delete_self_enabled: true,
    legal_accepted_at: null,
    locale: null,
    timezone: null,
  };
}

const clerkError = (code: string, message: string, long_message: string) => ({
  errors: [{ code, message, long_message, meta: {} }],
  clerk_trace_id: randomBytes(16).toString('hex'),
});

export async function startClerkEmulator(
  opts: { secretKey?: string; port?: number; users?: ClerkUserSeed[]; now?: () => number } = {},
): Promise<ClerkEmulator> {
  const secretKey = opts.secretKey ?? `sk_test_${randomBytes(16).toString('hex')}`;
  const now = opts.now ?? Date.now;
  const users = new Map<string, StoredUser>();
  const requests: Array<{ method: string; path: string; status: number }> = [];

  const addUser = (seed: ClerkUserSeed): string => {
    const email = seed.email.trim().toLowerCase();
    const id = seed.id ?? devUserId(email);
    users.set(id, {
      id,
      email,
      emailId: `idn_${randomBytes(8).toString('hex')}`,
      firstName: seed.firstName ?? null,
      lastName: seed.lastName ?? null,
      verified: seed.verified ?? true,
      createdAt: now(),
    });
    return id;
  };
  for (const u of opts.users ?? []) addUser(u);

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://clerk.local');
    const send = (status: number, body: unknown) => {
      requests.push({ method: req.method ?? 'GET', path: url.pathname, status });
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return send(
        401,
        clerkError(
          'authentication_invalid',
          'Invalid authentication',
          'Unable to authenticate the request, you need to supply an active API key',
        ),
      );
    }
    const listed = () => {
      const wanted = url.searchParams.getAll('email_address').map((e) => e.toLowerCase());
      return [...users.values()].filter((u) => wanted.length === 0 || wanted.includes(u.email));
    };
    if (req.method === 'GET' && url.pathname === '/v1/users/count') {
      // getUserList asks for the total beside the page.
      return send(200, { object: 'total_count', total_count: listed().length });
    }
    const userPath = url.pathname.match(/^\/v1\/users\/([^/]+)$/);
    if (req.method === 'GET' && userPath) {
      const user = users.get(decodeURIComponent(userPath[1]!));
      return user
        ? send(200, userJson(user))
        : send(404, clerkError('resource_not_found', 'not found', 'User not found'));
    }
    if (req.method === 'GET' && url.pathname === '/v1/users') {
      const limit = Number(url.searchParams.get('limit') ?? 10);
      return send(200, listed().slice(0, limit).map(userJson));
    }
    if (req.method === 'POST' && url.pathname === '/v1/users') {
      const body = JSON.parse((await readBody(req)) || '{}') as {
        email_address?: string[];
        first_name?: string;
        last_name?: string;
      };
      const email = body.email_address?.[0];
      if (!email) {
        return send(
          422,
          clerkError('form_param_missing', 'missing required parameter', 'email_address must be included.'),
        );
      }
      if ([...users.values()].some((u) => u.email === email.toLowerCase())) {
        return send(
          422,
          clerkError(
            'form_identifier_exists',
            'already exists',
            'That email address is taken. Please try another.',
          ),
        );
      }
      const id = addUser({
        email,
        ...(body.first_name ? { firstName: body.first_name } : {}),
        ...(body.last_name ? { lastName: body.last_name } : {}),
      });
      return send(200, userJson(users.get(id)!));
    }
    return send(404, clerkError('resource_not_found', 'not found', `No route ${req.method} ${url.pathname}`));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify(clerkError('internal_clerk_error', 'emulator error', String(e))));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    addUser,
    setVerified(userId, verified) {
      const u = users.get(userId);
      if (!u) throw new Error(`no user ${userId}`);
      u.verified = verified;
    },
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
