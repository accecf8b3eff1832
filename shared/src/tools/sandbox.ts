import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { AppError, describeZodIssues, ValidationError } from '../errors';
import { lazyInput, type Tool } from './tool';

/**
 * `run_code`: JavaScript in a QuickJS sandbox for arithmetic, dates and text work (SPEC §3.4).
 *
 * Inside: a fresh QuickJS instance per call with a hard memory cap, a max stack size (≤ 256 KB: larger lets deep
 * recursion overflow the real stack and crash the process) and an interrupt-handler deadline. No fs, network,
 * modules, timers or host objects: only the language, `console` (captured) and a few constants.
 *
 * Why a worker thread: QuickJS consults the interrupt handler only every ~10,000 calls/loop iterations, so a loop
 * around an expensive builtin (`while (true) bigString.indexOf('y')`) measured 12 s past a 200 ms deadline. The
 * interrupt handler stops ordinary runaways on time; a host-side watchdog terminates the worker when that is not
 * enough, so the deadline holds and the host's event loop is never blocked. The worker also keeps the sandbox's
 * wasm memory out of the host's heap. Worker code and the memory-cap details: sandbox-worker.ts.
 */

const KB = 1024;
const MB = 1024 * 1024;

export const sandboxLimitsSchema = z.object({
  timeoutMs: z.number().int().min(10).max(30_000),
  memoryBytes: z
    .number()
    .int()
    .min(2 * MB)
    .max(256 * MB),
  maxStackBytes: z
    .number()
    .int()
    .min(32 * KB)
    .max(256 * KB, 'must be at most 256 KB: a larger stack lets deep recursion crash the host'),
  /** Cap on the result's JSON text; longer results come back as `{ truncated, originalChars, preview }`. */
  maxOutputChars: z.number().int().min(100).max(100_000),
  maxLogChars: z.number().int().min(0).max(100_000),
  maxCodeChars: z.number().int().min(1).max(200_000),
});
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

/** Output + logs stay under TOOL_OUTPUT_MAX_CHARS (12,000) so the tool result is never cut again. */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 1_000,
  memoryBytes: 16 * MB,
  maxStackBytes: 256 * KB,
  maxOutputChars: 6_000,
  maxLogChars: 4_000,
  maxCodeChars: 20_000,
};

/** How long past the deadline the watchdog waits for the interrupt handler before terminating the worker. */
const DEFAULT_HARD_KILL_GRACE_MS = 500;

export type SandboxFailureKind =
  | 'timeout'
  | 'out_of_memory'
  | 'stack_overflow'
  | 'syntax_error'
  | 'runtime_error'
  | 'unsettled_promise'
  | 'cancelled';

export interface SandboxFailure {
  kind: SandboxFailureKind;
  /** A sentence the agent can act on: "timed out after 1000 ms", "SyntaxError: … (line 2)". */
  message: string;
}

interface SandboxOutcomeBase {
  /** console.log/info/warn/error lines, capped at maxLogChars. */
  logs: string[];
  logsTruncated: boolean;
  durationMs: number;
}
export type SandboxResult =
  | ({
      ok: true /** The last expression's value, JSON-safe (or a truncation marker). */;
      value: unknown;
    } & SandboxOutcomeBase)
  | ({ ok: false; error: SandboxFailure } & SandboxOutcomeBase);

/** Constants visible to the code as globals (e.g. NOW, TIMEZONE). */
export type SandboxGlobals = Record<string, string | number>;

/** Host → worker. */
export interface SandboxJob {
  id: number;
  code: string;
  limits: SandboxLimits;
  globals: SandboxGlobals;
}

/** Worker → host. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; result: SandboxResult }
  | { type: 'fatal'; id: number; message: string };

/** The sandbox machinery itself failed (not the user's code, whose failures are results). */
export class SandboxError extends AppError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'sandbox_failed', status: 500, retryable: false, cause });
  }
}

export interface RunOptions {
  limits?: Partial<SandboxLimits>;
  globals?: SandboxGlobals;
  signal?: AbortSignal;
}

export interface SandboxRunner {
  run(code: string, opts?: RunOptions): Promise<SandboxResult>;
  /** Stops the worker; the runner starts a new one if used again. */
  close(): Promise<void>;
}

export interface SandboxRunnerOptions {
  /**
   * The worker script. Defaults to `sandbox-worker.{mjs,js,ts}` beside this module: in the repository that is
   * the .ts source (Node runs it with type stripping); a bundled function must ship the worker as its own entry
   * point next to the bundle (`sandbox-worker.mjs`).
   */
  workerUrl?: URL;
  hardKillGraceMs?: number;
}

const globalsSchema = z.record(z.string().regex(/^[A-Za-z_$][\w$]*$/), z.union([z.string(), z.number()]));

export function resolveLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const parsed = sandboxLimitsSchema.safeParse({ ...DEFAULT_SANDBOX_LIMITS, ...overrides });
  if (!parsed.success)
    throw new ValidationError(`Invalid sandbox limits: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

export function createSandboxRunner(opts: SandboxRunnerOptions = {}): SandboxRunner {
  const graceMs = opts.hardKillGraceMs ?? DEFAULT_HARD_KILL_GRACE_MS;
  let worker: Worker | undefined;
  let ready: Promise<Worker> | undefined;
  let nextId = 1;
  // One job at a time per worker: QuickJS is synchronous there, and the watchdog must time one job only.
  let tail: Promise<unknown> = Promise.resolve();

  const discard = () => {
    const w = worker;
    worker = undefined;
    ready = undefined;
    return w ? w.terminate().then(() => undefined) : Promise.resolve();
  };

  // Node's worker machinery (worker_threads and the modules it brings) loads with the first run_code call,
  // not at the cold start of every function that registers the tool (issue 16).
  const start = (): Promise<Worker> => {
    if (ready) return ready;
    ready = import('node:worker_threads').then(({ Worker: Thread }) => spawn(Thread));
    ready.catch(() => discard());
    return ready;
  };

  const spawn = (Thread: typeof Worker): Promise<Worker> => {
    const url = opts.workerUrl ?? defaultWorkerUrl();
    const w = new Thread(url, { resourceLimits: { maxOldGenerationSizeMb: 128 } });
    worker = w;
    const handshake = new Promise<Worker>((resolve, reject) => {
      const onMessage = (m: WorkerMessage) => {
        if (m.type !== 'ready') return;
        cleanup();
        resolve(w);
      };
      const onError = (e: unknown) => {
        cleanup();
        reject(new SandboxError(`The sandbox worker failed to start: ${errorText(e)}`, e));
      };
      const onExit = (code: number) => onError(new Error(`exited with code ${code}`));
      const cleanup = () => {
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
    });
    // A worker that dies between jobs (crash, out of memory) must not be handed the next job.
    w.once('exit', () => {
      if (worker !== w) return;
      worker = undefined;
      ready = undefined;
    });
    // Idle workers must not keep the process (a test run, a script) alive.
    w.unref();
    return handshake;
  };

  const execute = async (job: SandboxJob, signal: AbortSignal | undefined): Promise<SandboxResult> => {
    if (signal?.aborted) return cancelled();
    const w = await start();
    w.ref();
    return new Promise<SandboxResult>((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearTimeout(watchdog);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        if (worker === w) w.unref();
        fn();
      };
      const onMessage = (m: WorkerMessage) => {
        if (m.type === 'result' && m.id === job.id) finish(() => resolve(m.result));
        if (m.type === 'fatal' && m.id === job.id) {
          finish(() => reject(new SandboxError(`The sandbox engine failed: ${m.message}`)));
          void discard();
        }
      };
      const onError = (e: unknown) => {
        finish(() => reject(new SandboxError(`The sandbox worker crashed: ${errorText(e)}`, e)));
        void discard();
      };
      const onExit = (code: number) => onError(new Error(`exited with code ${code}`));
      const onAbort = () => {
        finish(() => resolve(cancelled()));
        void discard();
      };
      const watchdog = setTimeout(() => {
        // The interrupt handler did not get a chance in time: stop the thread itself.
        finish(() =>
          resolve({
            ok: false,
            error: { kind: 'timeout', message: `timed out after ${job.limits.timeoutMs} ms` },
            logs: [],
            logsTruncated: false,
            durationMs: job.limits.timeoutMs + graceMs,
          }),
        );
        void discard();
      }, job.limits.timeoutMs + graceMs);
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      w.postMessage(job);
    });
  };

  return {
    async run(code, runOpts = {}) {
      const limits = resolveLimits(runOpts.limits);
      if (code.length > limits.maxCodeChars) {
        throw new ValidationError(`code is ${code.length} characters; the limit is ${limits.maxCodeChars}`);
      }
      const globals = globalsSchema.safeParse(runOpts.globals ?? {});
      if (!globals.success) {
        throw new ValidationError(`Invalid sandbox globals: ${describeZodIssues(globals.error.issues)}`);
      }
      const job: SandboxJob = { id: nextId++, code, limits, globals: globals.data };
      const result = tail.then(() => execute(job, runOpts.signal));
      tail = result.catch(() => undefined);
      return result;
    },
    close: discard,
  };
}

let defaultRunner: SandboxRunner | undefined;

/** The process-wide runner, created on first use (like an SDK client built once per cold start). */
export function defaultSandboxRunner(): SandboxRunner {
  defaultRunner ??= createSandboxRunner();
  return defaultRunner;
}

/** Runs `code` in a fresh sandbox. User-code failures come back as `{ ok: false, error }`, never as throws. */
export function runSandboxed(
  code: string,
  limits?: Partial<SandboxLimits>,
  opts: Omit<RunOptions, 'limits'> = {},
): Promise<SandboxResult> {
  return defaultSandboxRunner().run(code, { ...opts, limits });
}

// ---- the tool ----

const runCodeInput = lazyInput(() =>
  z.object({
    code: z
      .string()
      .min(1)
      .max(DEFAULT_SANDBOX_LIMITS.maxCodeChars)
      .describe('JavaScript to run. The value of the last expression is returned.'),
  }),
);

export interface SandboxDeps {
  sandbox?: SandboxRunner;
  sandboxLimits?: Partial<SandboxLimits>;
}

export const runCodeTool: Tool<typeof runCodeInput, SandboxDeps> = {
  name: 'run_code',
  kind: 'read',
  group: 'sandbox',
  description: [
    'Run a short JavaScript program (ES2023, QuickJS engine) for arithmetic, date math and text processing.',
    'The value of the last expression is returned as JSON; console.log output is captured.',
    'There is no network, no files, no modules (require/import), no timers, no fetch and no Intl.',
    'Globals: NOW (the current time, ISO 8601 UTC), TIMEZONE (the team IANA time zone) and TZ_OFFSET_MINUTES',
    "(that zone's UTC offset at NOW). Date objects work in UTC: add TZ_OFFSET_MINUTES for local wall-clock time.",
    'Limits: 1 second, 16 MB of memory, result 6,000 characters, logs 4,000 characters.',
    'On failure the result is { ok: false, error: { kind, message } }: fix the code and try again.',
  ].join(' '),
  input: runCodeInput,
  async run(deps, input, ctx) {
    const runner = deps?.sandbox ?? defaultSandboxRunner();
    const globals: SandboxGlobals = { NOW: ctx.now.toISOString(), TIMEZONE: ctx.timezone };
    const offset = DateTime.fromJSDate(ctx.now, { zone: ctx.timezone }).offset;
    if (Number.isFinite(offset)) globals.TZ_OFFSET_MINUTES = offset;
    return runner.run(input.code, { limits: deps?.sandboxLimits, globals, signal: ctx.signal });
  },
  summarize(input) {
    const first = input.code.trim().split('\n')[0] ?? '';
    return `Run code: ${first.length > 80 ? `${first.slice(0, 77)}…` : first}`;
  },
};

// ---- helpers ----

function defaultWorkerUrl(): URL {
  for (const name of ['sandbox-worker.mjs', 'sandbox-worker.js', 'sandbox-worker.ts']) {
    const url = new URL(`./${name}`, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new SandboxError(
    `The sandbox worker script is missing beside ${import.meta.url}; bundle shared/src/tools/sandbox-worker.ts as sandbox-worker.mjs next to the function.`,
  );
}

function cancelled(): SandboxResult {
  return {
    ok: false,
    error: { kind: 'cancelled', message: 'cancelled before it finished' },
    logs: [],
    logsTruncated: false,
    durationMs: 0,
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
