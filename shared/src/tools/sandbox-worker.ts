import { parentPort } from 'node:worker_threads';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from 'quickjs-emscripten';
import type { SandboxFailure, SandboxJob, SandboxResult, WorkerMessage } from './sandbox';

/**
 * The QuickJS side of `run_code`, run in a worker thread so the host can always stop it (see sandbox.ts).
 *
 * Node loads this file directly (type stripping), so it imports only packages and `import type`s, which are
 * erased. Nothing from the host is reachable inside except `console` (captured) and a few constant globals.
 *
 * Memory: QuickJS's own limit (`setMemoryLimit`) is not reliable in this wasm build — without
 * malloc_usable_size it counts about 8 bytes per allocation, and a "16 MB" runtime grew the heap to 375 MB.
 * So every job gets its own WebAssembly instance whose Memory has a hard maximum (the module's 16 MB base plus
 * the job's memory limit): past it malloc fails and QuickJS throws "out of memory" cleanly. A fresh instance per
 * job also means nothing survives between jobs, and the memory goes back to the host when the job ends.
 */

const WASM_PAGE = 64 * 1024;
/** The module's declared initial memory (Emscripten's INITIAL_MEMORY, 16 MB): static data and the C stack. */
const BASE_PAGES = 256;

/** Converting the result runs user code too (toJSON, getters), so it gets a small budget of its own. */
const EXTRACT_BUDGET_MS = 200;
const MAX_ERROR_CHARS = 500;

export async function runJob(job: SandboxJob): Promise<SandboxResult> {
  const maxPages = BASE_PAGES + Math.ceil(job.limits.memoryBytes / WASM_PAGE);
  const memory = new WebAssembly.Memory({ initial: BASE_PAGES, maximum: maxPages });
  // Emscripten grows the heap with memory.grow() and treats a throw as "malloc failed". Whether the most recent
  // attempt was refused tells us the code hit the cap; the heap's size alone does not (growth comes in steps
  // that stop short of the maximum).
  let lastGrowRefused = false;
  const grow = memory.grow.bind(memory);
  memory.grow = (delta: number) => {
    try {
      const previous = grow(delta);
      lastGrowRefused = false;
      return previous;
    } catch (e) {
      lastGrowRefused = true;
      throw e;
    }
  };
  const qjs = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
  return evaluate(qjs, job, () => lastGrowRefused);
}

export function evaluate(
  qjs: QuickJSWASMModule,
  job: SandboxJob,
  heapFull: () => boolean = () => false,
): SandboxResult {
  const { limits } = job;
  const started = performance.now();
  const logs: string[] = [];
  let logChars = 0;
  let logsTruncated = false;
  let deadline = Date.now() + limits.timeoutMs;
  let interrupted = false;
  const owned: QuickJSHandle[] = [];
  const own = (h: QuickJSHandle) => {
    owned.push(h);
    return h;
  };

  const runtime = qjs.newRuntime();
  let vm: QuickJSContext | undefined;
  try {
    runtime.setMemoryLimit(limits.memoryBytes);
    // Larger stacks let deep recursion overflow the real (wasm/host) stack before QuickJS notices.
    runtime.setMaxStackSize(limits.maxStackBytes);
    runtime.setInterruptHandler(() => {
      if (Date.now() <= deadline) return false;
      interrupted = true;
      return true;
    });
    const ctx = runtime.newContext();
    vm = ctx;

    // Keep the real intrinsics before user code can replace them; we need them to read the result.
    const json = own(ctx.getProp(ctx.global, 'JSON'));
    const stringify = own(ctx.getProp(json, 'stringify'));
    const stringProto = own(ctx.getProp(own(ctx.getProp(ctx.global, 'String')), 'prototype'));
    const slice = own(ctx.getProp(stringProto, 'slice'));

    const readString = (h: QuickJSHandle, max: number): { text: string; length: number } => {
      const length = ctx.getNumber(own(ctx.getProp(h, 'length')));
      if (length <= max) return { text: ctx.getString(h), length };
      // Cut inside the VM so a 16 MB string is never copied into the host.
      const cut = ctx.callFunction(slice, h, own(ctx.newNumber(0)), own(ctx.newNumber(max)));
      if (cut.error) {
        own(cut.error);
        return { text: '', length };
      }
      return { text: ctx.getString(own(cut.value)), length };
    };

    /** JSON text of a value, capped; undefined when JSON has no representation for it. */
    const toJsonText = (h: QuickJSHandle, max: number): { text: string; length: number } | undefined => {
      const r = ctx.callFunction(stringify, ctx.undefined, h);
      if (r.error) throw new ResultError(describeThrown(ctx, own(r.error), job, interrupted, heapFull));
      const out = own(r.value);
      return ctx.typeof(out) === 'string' ? readString(out, max) : undefined;
    };

    const formatLogArg = (h: QuickJSHandle, max: number): string => {
      const type = ctx.typeof(h);
      if (type === 'string') return readString(h, max).text;
      if (type === 'function') return '[function]';
      if (type === 'symbol' || type === 'bigint' || type === 'undefined') return String(ctx.dump(h));
      try {
        const text = toJsonText(h, max)?.text ?? 'undefined';
        if (text === '{}') {
          // Errors stringify as {}; show them the way a console would.
          const name = ctx.dump(own(ctx.getProp(h, 'name')));
          const message = ctx.dump(own(ctx.getProp(h, 'message')));
          if (typeof message === 'string') return `${typeof name === 'string' ? name : 'Error'}: ${message}`;
        }
        return text;
      } catch {
        return '[unserializable]';
      }
    };

    const consoleObject = own(ctx.newObject());
    for (const [method, prefix] of [
      ['log', ''],
      ['info', ''],
      ['debug', ''],
      ['warn', 'warn: '],
      ['error', 'error: '],
    ] as const) {
      const fn = own(
        ctx.newFunction(method, (...args) => {
          const room = limits.maxLogChars - logChars;
          if (room <= 0) {
            logsTruncated = true;
            return;
          }
          let line = prefix + args.map((a) => formatLogArg(a, room)).join(' ');
          if (line.length > room) {
            line = line.slice(0, room);
            logsTruncated = true;
          }
          logChars += line.length + 1;
          logs.push(line);
        }),
      );
      ctx.setProp(consoleObject, method, fn);
    }
    ctx.setProp(ctx.global, 'console', consoleObject);
    for (const [name, value] of Object.entries(job.globals)) {
      ctx.setProp(
        ctx.global,
        name,
        own(typeof value === 'number' ? ctx.newNumber(value) : ctx.newString(value)),
      );
    }

    const done = (outcome: { value: unknown } | { error: SandboxFailure }): SandboxResult => {
      const base = { logs, logsTruncated, durationMs: Math.round(performance.now() - started) };
      return 'error' in outcome
        ? { ok: false, error: outcome.error, ...base }
        : { ok: true, value: outcome.value, ...base };
    };

    const evaluated = ctx.evalCode(job.code, 'run_code.js', { type: 'global' });
    if (evaluated.error)
      return done({ error: describeThrown(ctx, own(evaluated.error), job, interrupted, heapFull) });
    let result = own(evaluated.value);

    const promise = ctx.getPromiseState(result);
    const isPromise = !(promise.type === 'fulfilled' && promise.notAPromise);
    if (isPromise) {
      // `(async () => …)()` is the way to use await here; settle it within the same deadline.
      if (promise.type === 'fulfilled') own(promise.value);
      if (promise.type === 'rejected') own(promise.error);
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        own(jobs.error);
        if (interrupted) return done({ error: timeout(job) });
      }
      const settled = ctx.getPromiseState(result);
      if (settled.type === 'pending') {
        return done({
          error: {
            kind: 'unsettled_promise',
            message:
              'The result is a promise that never settled (there are no timers or I/O in the sandbox).',
          },
        });
      }
      if (settled.type === 'rejected')
        return done({ error: describeThrown(ctx, own(settled.error), job, interrupted, heapFull) });
      result = own(settled.value);
    }

    deadline = Date.now() + EXTRACT_BUDGET_MS;
    try {
      return done({ value: toHostValue(ctx, result, limits.maxOutputChars, toJsonText, readString) });
    } catch (e) {
      if (e instanceof ResultError) {
        const reason = e.failure;
        return done({
          error:
            reason.kind === 'runtime_error'
              ? {
                  kind: 'runtime_error',
                  message: `The result could not be converted to JSON: ${reason.message}`,
                }
              : reason,
        });
      }
      throw e;
    }
  } finally {
    for (const h of owned.reverse()) if (h.alive) h.dispose();
    vm?.dispose();
    runtime.dispose();
  }
}

/** Carries a failure out of result conversion. (No parameter properties: Node's type stripping rejects them.) */
class ResultError extends Error {
  readonly failure: SandboxFailure;
  constructor(failure: SandboxFailure) {
    super(failure.message);
    this.failure = failure;
  }
}

function toHostValue(
  ctx: QuickJSContext,
  h: QuickJSHandle,
  max: number,
  toJsonText: (h: QuickJSHandle, max: number) => { text: string; length: number } | undefined,
  readString: (h: QuickJSHandle, max: number) => { text: string; length: number },
): unknown {
  switch (ctx.typeof(h)) {
    case 'undefined':
      return undefined;
    case 'number': {
      const n = ctx.getNumber(h);
      // JSON would turn these into null, which reads as "no answer" for arithmetic.
      return Number.isFinite(n) ? n : String(n);
    }
    case 'boolean':
      return ctx.dump(h) as boolean;
    case 'bigint':
      return ctx.getBigInt(h).toString();
    case 'symbol':
      return String(ctx.dump(h));
    case 'function':
      return '[function]';
    case 'string': {
      const { text, length } = readString(h, max);
      return length > max ? { truncated: true, originalChars: length, preview: text } : text;
    }
    default: {
      const json = toJsonText(h, max);
      if (!json) return undefined;
      if (json.length > max) return { truncated: true, originalChars: json.length, preview: json.text };
      return JSON.parse(json.text) as unknown;
    }
  }
}

function timeout(job: SandboxJob): SandboxFailure {
  return { kind: 'timeout', message: `timed out after ${job.limits.timeoutMs} ms` };
}

/** Turns whatever the code threw into a message the agent can act on. */
function describeThrown(
  ctx: QuickJSContext,
  err: QuickJSHandle,
  job: SandboxJob,
  interrupted: boolean,
  heapFull: () => boolean,
): SandboxFailure {
  if (interrupted) return timeout(job);
  const mb = Math.round(job.limits.memoryBytes / (1024 * 1024));
  const dumped = ctx.dump(err) as unknown;
  if (
    !dumped ||
    typeof dumped !== 'object' ||
    typeof (dumped as { message?: unknown }).message !== 'string'
  ) {
    // With the heap full, QuickJS cannot even allocate the copy of the error it would hand us (dump gives "").
    if (heapFull()) return { kind: 'out_of_memory', message: `out of memory (limit ${mb} MB)` };
    const text = JSON.stringify(dumped) ?? String(dumped);
    return { kind: 'runtime_error', message: `Uncaught ${text}`.slice(0, MAX_ERROR_CHARS) };
  }
  const { name, message, stack, lineNumber } = dumped as {
    name?: string;
    message: string;
    stack?: string;
    lineNumber?: number;
  };
  if (message === 'out of memory')
    return { kind: 'out_of_memory', message: `out of memory (limit ${mb} MB)` };
  if (message === 'string too long') {
    return { kind: 'out_of_memory', message: 'out of memory (a string grew past the maximum string length)' };
  }
  if (message === 'stack overflow') {
    const kb = Math.round(job.limits.maxStackBytes / 1024);
    return { kind: 'stack_overflow', message: `stack overflow (recursion too deep for the ${kb} KB stack)` };
  }
  const where = stack?.match(/run_code\.js:(\d+)(?::(\d+))?/);
  const line = where?.[1] ?? (lineNumber === undefined ? undefined : String(lineNumber));
  const at = line ? ` (line ${line}${where?.[2] ? `, column ${where[2]}` : ''})` : '';
  const text = `${name ?? 'Error'}: ${message}${at}`.slice(0, MAX_ERROR_CHARS);
  return { kind: name === 'SyntaxError' ? 'syntax_error' : 'runtime_error', message: text };
}

if (parentPort) {
  const port = parentPort;
  // The host sends one job at a time and waits for its answer, so jobs never overlap here.
  port.on('message', async (job: SandboxJob) => {
    let reply: WorkerMessage;
    try {
      reply = { type: 'result', id: job.id, result: await runJob(job) };
    } catch (e) {
      // The engine itself failed (a wasm trap, a leaked handle): report and exit rather than carry on in a
      // state nobody tested; the host starts a fresh worker for the next job.
      port.postMessage({ type: 'fatal', id: job.id, message: e instanceof Error ? e.message : String(e) });
      process.exit(1);
    }
    port.postMessage(reply);
  });
  // Compile the wasm once before saying ready: later instances reuse the compiled code (~10 ms instead of
  // ~200 ms), so compilation never eats into a job's deadline.
  await newQuickJSWASMModuleFromVariant(
    newVariant(RELEASE_SYNC, {
      wasmMemory: new WebAssembly.Memory({ initial: BASE_PAGES, maximum: BASE_PAGES }),
    }),
  );
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}
