import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A git smart-HTTP host on 127.0.0.1 over real bare repositories: a thin bridge to `git http-backend` (CGI),
 * so clone, fetch and push speak exactly the protocol GitHub does and pushes are really kept (which
 * git-http-mock-server does not do). Repositories refuse non-fast-forward updates, as a protected branch on a
 * real host would, so the memory workspace's fetch → merge → retry path is exercised for real.
 */
export interface GitServerOptions {
  port?: number;
  /** Folder holding the bare repositories; a temporary one (removed on stop) when absent. */
  root?: string;
  /** When set, every request needs `Authorization: Bearer <token>` or Basic auth whose password (or user) is the token. */
  token?: string;
}

export interface GitServer {
  url: string;
  root: string;
  /** Clone URL of a repository (`<url>/<name>.git`). */
  repoUrl(name: string): string;
  /** Creates an empty bare repository with `main` as its default branch; returns its clone URL. */
  createBareRepo(name: string): Promise<string>;
  stop(): Promise<void>;
}

const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const ownsRoot = !opts.root;
  const root = opts.root ?? (await mkdtemp(join(tmpdir(), 'switchboard-git-')));
  await mkdir(root, { recursive: true });
  const children = new Set<ChildProcess>();

  const server = createServer((req, res) => {
    const user = authenticate(req, opts.token);
    if (user === null) {
      res.writeHead(401, {
        'WWW-Authenticate': 'Basic realm="switchboard-git"',
        'Content-Type': 'text/plain',
      });
      res.end('Authentication required\n');
      return;
    }
    bridgeToHttpBackend(req, res, root, user, children);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const repoUrl = (name: string) => `${url}/${checkName(name)}.git`;

  return {
    url,
    root,
    repoUrl,
    async createBareRepo(name) {
      const path = join(root, `${checkName(name)}.git`);
      await run('git', ['init', '--quiet', '--bare', '--initial-branch=main', path]);
      // A real host accepts pushes over HTTPS, refuses rewriting a branch's history and deleting the default
      // branch, and lets other branches be deleted (GitHub's defaults; `npm run doctor` pushes and deletes one).
      await run('git', ['-C', path, 'config', 'http.receivepack', 'true']);
      await run('git', ['-C', path, 'config', 'receive.denyNonFastForwards', 'true']);
      await run('git', ['-C', path, 'config', 'receive.denyDeleteCurrent', 'refuse']);
      return repoUrl(name);
    },
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownsRoot) await rm(root, { recursive: true, force: true });
    },
  };
}

/** Alias following the emulator naming convention of scripts/emulators. */
export const startGitEmulator = startGitServer;

function checkName(name: string): string {
  if (!REPO_NAME.test(name)) throw new Error(`Invalid repository name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * Returns the authenticated user name, '' for anonymous access when no token is configured, or null when the
 * request must be refused. Accepts the forms git clients use with a token: Bearer, Basic with the token as
 * password (GitHub's `x-access-token:<token>`), or Basic with the token as user name.
 */
function authenticate(req: IncomingMessage, token: string | undefined): string | null {
  if (!token) return '';
  const header = req.headers.authorization ?? '';
  const [scheme, value = ''] = header.split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return value === token ? 'token' : null;
  if (scheme?.toLowerCase() !== 'basic') return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (password === token) return user || 'token';
  if (user === token) return 'token';
  return null;
}

function bridgeToHttpBackend(
  req: IncomingMessage,
  res: ServerResponse,
  root: string,
  user: string,
  children: Set<ChildProcess>,
): void {
  const target = new URL(req.url ?? '/', 'http://127.0.0.1');
  const pathInfo = decodeURIComponent(target.pathname);
  // http-backend resolves PATH_INFO under GIT_PROJECT_ROOT itself, but refuse traversal before spawning.
  if (pathInfo.split('/').includes('..')) {
    res.writeHead(400, { 'Content-Type': 'text/plain' });
    res.end('Bad path\n');
    return;
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    // Keep the machine's own git configuration out of the emulated host.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: pathInfo,
    QUERY_STRING: target.search.slice(1),
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REMOTE_USER: user,
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  // http-backend reads the Git-Protocol header (protocol v2) from its CGI variable.
  if (req.headers['git-protocol']) env.HTTP_GIT_PROTOCOL = String(req.headers['git-protocol']);

  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.on('error', (err) => {
    children.delete(child);
    if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(`git http-backend failed to start: ${err.message}\n`);
  });
  child.on('close', () => children.delete(child));
  // The client may close early (e.g. an aborted fetch); the backend then sees EPIPE, which is expected.
  child.stdin.on('error', () => {});
  req.pipe(child.stdin);

  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const split = findHeaderEnd(head);
    if (!split) return;
    headersDone = true;
    const { status, headers } = parseCgiHeaders(head.subarray(0, split.start).toString('latin1'));
    res.writeHead(status, headers);
    const body = head.subarray(split.end);
    if (body.length > 0) res.write(body);
  });
  child.stdout.on('end', () => {
    if (!headersDone) {
      const detail = Buffer.concat(stderr).toString('utf8').trim();
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`git http-backend returned no response${detail ? `: ${detail}` : ''}\n`);
      return;
    }
    res.end();
  });
}

/** CGI output is headers, a blank line (CRLF or LF), then the body. */
function findHeaderEnd(buf: Buffer): { start: number; end: number } | undefined {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { start: crlf, end: crlf + 4 };
  if (lf >= 0) return { start: lf, end: lf + 2 };
  return undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers };
}
