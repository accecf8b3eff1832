import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors';
import { createSandboxRunner, runCodeTool, runSandboxed, SandboxError, type SandboxResult } from './sandbox';
import type { ToolContext } from './tool';

const runner = createSandboxRunner();
afterAll(() => runner.close());

const run = (code: string, limits?: Parameters<typeof runner.run>[1]) => runner.run(code, limits);

function value(r: SandboxResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.kind}: ${r.error.message}`);
  return r.value;
}
function failure(r: SandboxResult) {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.value)}`);
  return r.error;
}

describe('run_code sandbox: useful work', () => {
  it('does arithmetic, keeping non-JSON numbers readable', async () => {
    expect(value(await run('0.1 + 0.2'))).toBeCloseTo(0.3);
    expect(value(await run('Math.round(1234.5678 * 100) / 100'))).toBe(1234.57);
    expect(value(await run('2n ** 64n'))).toBe('18446744073709551616');
    expect(value(await run('1 / 0'))).toBe('Infinity');
    expect(value(await run('[3, 1, 2].reduce((a, b) => a + b, 0) / 3'))).toBe(2);
  });

  it('does date work in UTC', async () => {
    const code = `
      const start = new Date(Date.UTC(2024, 1, 28));
      const next = new Date(start.getTime() + 86400000);
      const days = (Date.UTC(2024, 11, 25) - Date.UTC(2024, 0, 1)) / 86400000;
      ({ next: next.toISOString().slice(0, 10), weekday: next.getUTCDay(), days, when: next })`;
    expect(value(await run(code))).toEqual({
      next: '2024-02-29',
      weekday: 4,
      days: 359,
      when: '2024-02-29T00:00:00.000Z',
    });
  });

  it('parses and builds JSON, and returns structured values', async () => {
    const code = `
      const rows = JSON.parse('[{"unit":"2B","rent":2100},{"unit":"3A","rent":2650},{"unit":"1C","rent":1500}]');
      const avg = rows.reduce((s, r) => s + r.rent, 0) / rows.length;
      ({ avg, above: rows.filter((r) => r.rent > avg).map((r) => r.unit), text: JSON.stringify({ ok: true }) })`;
    expect(value(await run(code))).toEqual({
      avg: 2083.3333333333335,
      above: ['2B', '3A'],
      text: '{"ok":true}',
    });
  });

  it('does text work with regular expressions', async () => {
    const code = `
      const sms = 'Call me at (415) 555-0111 or 415.555.0199 after 5pm';
      sms.match(/\\(?\\d{3}\\)?[ .-]?\\d{3}[ .-]\\d{4}/g).map((p) => p.replace(/\\D/g, ''))`;
    expect(value(await run(code))).toEqual(['4155550111', '4155550199']);
  });

  it('captures console output with a level prefix', async () => {
    const r = await run(
      `console.log('total', 3, { a: 1 }, [1, 2]); console.error(new TypeError('bad input')); 'done'`,
    );
    expect(value(r)).toBe('done');
    expect(r.logs).toEqual(['total 3 {"a":1} [1,2]', 'error: TypeError: bad input']);
  });

  it('settles an async result, and reports a promise that can never settle', async () => {
    expect(value(await run('(async () => { const x = await Promise.resolve(6); return x * 7 })()'))).toBe(42);
    expect(failure(await run('new Promise(() => {})')).kind).toBe('unsettled_promise');
    expect(failure(await run('Promise.reject(new RangeError("nope"))')).message).toMatch(/^RangeError: nope/);
  });

  it('returns JSON-safe stand-ins for values JSON cannot carry', async () => {
    expect(value(await run('(function named() {})'))).toBe('[function]');
    expect(value(await run('undefined'))).toBeUndefined();
    expect(value(await run('null'))).toBeNull();
    const circular = failure(await run('const o = {}; o.self = o; o'));
    expect(circular.kind).toBe('runtime_error');
    expect(circular.message).toContain('could not be converted to JSON');
  });

  it('reads the result with the real JSON even if the code replaced it', async () => {
    expect(value(await run(`JSON.stringify = () => '"hacked"'; ({ a: 1 })`))).toEqual({ a: 1 });
  });
});

describe('run_code sandbox: errors the agent can act on', () => {
  it('reports syntax errors with their line', async () => {
    const e = failure(await run('const a = 1;\nconst b = ;'));
    expect(e.kind).toBe('syntax_error');
    expect(e.message).toMatch(/^SyntaxError: .+ \(line 2/);
  });

  it('reports runtime errors with name, message and position', async () => {
    const e = failure(await run('const contact = null;\ncontact.name'));
    expect(e.kind).toBe('runtime_error');
    expect(e.message).toMatch(/^TypeError: .*null.* \(line 2, column \d+\)$/);
    expect(failure(await run('throw "plain string"')).message).toBe('Uncaught "plain string"');
  });
});

describe('run_code sandbox: limits and escapes', () => {
  it('stops an infinite loop at the deadline', async () => {
    const started = Date.now();
    const e = failure(await run('while (true) {}'));
    expect(e).toEqual({ kind: 'timeout', message: 'timed out after 1000 ms' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('stops a loop that catches the interrupt and keeps going', async () => {
    const e = failure(
      await run('for (;;) { try { while (true) {} } catch (e) {} }', { limits: { timeoutMs: 200 } }),
    );
    expect(e.kind).toBe('timeout');
  });

  it('stops a memory bomb (array growth) with out of memory', async () => {
    // A generous deadline: on a loaded 2-core CI box the 1 s default can expire before the heap fills.
    const e = failure(
      await run('const a = []; for (let i = 0; ; i++) a.push({ i, s: "item " + i });', {
        limits: { timeoutMs: 15_000 },
      }),
    );
    expect(e).toEqual({ kind: 'out_of_memory', message: 'out of memory (limit 16 MB)' });
  });

  it('enforces the memory limit where QuickJS alone would not (dense arrays, many large strings)', async () => {
    // QuickJS's own limit misses these in this wasm build (a "16 MB" runtime reached 375 MB); the capped wasm
    // Memory is what stops them.
    const arrays = 'const a = []; for (let i = 0; i < 300; i++) a.push(new Array(1e5).fill(i)); a.length';
    expect(failure(await run(arrays, { limits: { timeoutMs: 15_000 } })).kind).toBe('out_of_memory');
    const strings = 'const a = []; for (let i = 0; i < 300; i++) a.push("x".repeat(1e5) + i); a.length';
    expect(failure(await run(strings, { limits: { timeoutMs: 15_000 } })).kind).toBe('out_of_memory');
    // The limit is the limit, not a fixed ceiling: 30 MB of strings fit in 64 MB.
    expect(value(await run(strings, { limits: { memoryBytes: 64 * 1024 * 1024 } }))).toBe(300);
  });

  it('stops a string bomb: s += s fails, and a loop that swallows the failure hits the deadline', async () => {
    expect(failure(await run('let s = "x"; while (true) s += s;')).kind).toBe('out_of_memory');
    const swallowed = await run(
      'let s = "x"; for (;;) { try { s += s; s.indexOf("y"); } catch (e) { s = "x"; } }',
      {
        limits: { timeoutMs: 300 },
      },
    );
    expect(failure(swallowed).kind).toBe('timeout');
  });

  it('stops deep recursion with a stack overflow instead of crashing the host', async () => {
    const e = failure(await run('function down(n) { return down(n + 1) + 1 } down(0)'));
    expect(e).toEqual({
      kind: 'stack_overflow',
      message: 'stack overflow (recursion too deep for the 256 KB stack)',
    });
  });

  it('terminates code the interrupt handler cannot reach in time (expensive builtin in a loop)', async () => {
    // QuickJS polls the interrupt handler every ~10,000 calls; each indexOf over 2 MB costs milliseconds, so
    // without the watchdog this ran 12 s past a 200 ms deadline.
    const started = Date.now();
    const e = failure(
      await run('const s = "x".repeat(2e6); while (true) s.indexOf("y");', { limits: { timeoutMs: 200 } }),
    );
    expect(e).toEqual({ kind: 'timeout', message: 'timed out after 200 ms' });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(value(await run('"the next call gets a fresh worker"'))).toBe('the next call gets a fresh worker');
  });

  it('exposes no process, modules, network or timers, whichever way the code looks', async () => {
    const probe = `({
      names: ['process', 'require', 'module', 'fetch', 'XMLHttpRequest', 'WebSocket', 'setTimeout', 'setInterval',
              'setImmediate', 'queueMicrotask', 'Buffer', 'Deno', 'Bun', 'std', 'os', 'WebAssembly', 'importScripts']
        .filter((n) => typeof globalThis[n] !== 'undefined'),
      viaFunction: Function('return typeof process + typeof require')(),
      viaConstructor: (() => {}).constructor.constructor('return this')() === globalThis,
      viaEval: eval('typeof fetch'),
      globals: Object.getOwnPropertyNames(globalThis).filter((n) => /process|require|fetch|timeout|interval/i.test(n)),
    })`;
    expect(value(await run(probe))).toEqual({
      names: [],
      viaFunction: 'undefinedundefined',
      viaConstructor: true,
      viaEval: 'undefined',
      globals: [],
    });
    const dynamicImport = failure(await run('import("fs")'));
    expect(dynamicImport.message).toContain("could not load module 'fs'");
    expect(failure(await run('import fs from "fs"; fs')).kind).toBe('syntax_error');
    expect(failure(await run('process.exit(1)')).message).toMatch(/^ReferenceError: .*process/);
  });

  it('gives every call a fresh context', async () => {
    expect(value(await run('globalThis.leak = 42; Object.prototype.polluted = true; 1'))).toBe(1);
    expect(value(await run('[typeof leak, ({}).polluted]'))).toEqual(['undefined', null]);
  });

  it('caps the result and the captured logs', async () => {
    const big = value(await run('"x".repeat(100000)')) as {
      truncated: boolean;
      originalChars: number;
      preview: string;
    };
    expect(big).toMatchObject({ truncated: true, originalChars: 100_000 });
    expect(big.preview).toHaveLength(6_000);
    const bigObject = value(await run('Array.from({ length: 5000 }, (_, i) => i)')) as { truncated: boolean };
    expect(bigObject.truncated).toBe(true);

    // The cap, not the clock, is under test: a generous deadline keeps a loaded CI machine from timing out.
    const r = await run('for (let i = 0; i < 10000; i++) console.log("line " + i); "ok"', {
      limits: { timeoutMs: 10_000 },
    });
    expect(value(r)).toBe('ok');
    expect(r.logsTruncated).toBe(true);
    expect(r.logs.join('\n').length).toBeLessThanOrEqual(4_000);
    expect(r.logs[0]).toBe('line 0');
  });

  it('validates limits and code size at the boundary', async () => {
    await expect(run('1', { limits: { maxStackBytes: 1024 * 1024 } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(run('1', { limits: { maxStackBytes: 1024 * 1024 } })).rejects.toThrow(/at most 256 KB/);
    await expect(run('x'.repeat(20_001))).rejects.toBeInstanceOf(ValidationError);
  });

  it('cancels on abort', async () => {
    const controller = new AbortController();
    const pending = run('while (true) {}', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(failure(await pending).kind).toBe('cancelled');
  });

  it('keeps the host alive and correct after all of the above in one process', async () => {
    // Loops get a short deadline to keep the test quick; the memory bombs get the default so they reach the cap.
    const bombs: Array<[code: string, timeoutMs: number]> = [
      ['while (true) {}', 200],
      ['const a = []; for (;;) a.push([a.length]);', 15_000],
      ['const m = new Map(); for (let i = 0; ; i++) m.set(i, String(i));', 15_000],
      ['let s = "x"; while (true) s += s;', 1_000],
      ['function f() { return f() } f()', 1_000],
      ['function g() { try { return g() } catch (e) { return g() } } g()', 200],
      ['const s = "x".repeat(1e6); while (true) s.lastIndexOf("y");', 200],
    ];
    const kinds = [];
    for (const [code, timeoutMs] of bombs)
      kinds.push(failure(await run(code, { limits: { timeoutMs } })).kind);
    expect(kinds).toEqual([
      'timeout',
      'out_of_memory',
      'out_of_memory',
      'out_of_memory',
      'stack_overflow',
      'timeout',
      'timeout',
    ]);
    expect(value(await run('6 * 7'))).toBe(42);
    await runner.close();
    expect(value(await run('"a closed runner starts a new worker"'))).toBe(
      'a closed runner starts a new worker',
    );
  });

  it('fails with a typed SandboxError when the worker cannot start', async () => {
    const broken = createSandboxRunner({ workerUrl: new URL('file:///nonexistent/sandbox-worker.mjs') });
    await expect(broken.run('1')).rejects.toBeInstanceOf(SandboxError);
    await broken.close();
  });
});

describe('run_code tool', () => {
  const ctx: ToolContext = {
    conversationId: 'c1',
    runId: 'r1',
    now: new Date('2025-01-15T14:30:00.000Z'),
    timezone: 'America/New_York',
  };

  it('is a read tool in the sandbox group with a bounded zod input', () => {
    expect(runCodeTool).toMatchObject({ name: 'run_code', kind: 'read', group: 'sandbox' });
    expect(runCodeTool.input.safeParse({ code: '1 + 1' }).success).toBe(true);
    expect(runCodeTool.input.safeParse({ code: '' }).success).toBe(false);
    expect(runCodeTool.input.safeParse({ code: 'x'.repeat(20_001) }).success).toBe(false);
    expect(runCodeTool.summarize?.({ code: 'const a = 1;\na * 2' })).toBe('Run code: const a = 1;');
  });

  it('gives the code the run clock and the team time zone', async () => {
    const result = await runCodeTool.run(
      { sandbox: runner },
      {
        code: `const local = new Date(Date.parse(NOW) + TZ_OFFSET_MINUTES * 60000);
               ({ now: NOW, zone: TIMEZONE, offset: TZ_OFFSET_MINUTES, localHour: local.getUTCHours() })`,
      },
      ctx,
    );
    expect(result).toMatchObject({
      ok: true,
      value: { now: '2025-01-15T14:30:00.000Z', zone: 'America/New_York', offset: -300, localHour: 9 },
    });
  });

  it('works through the default runner (runSandboxed)', async () => {
    expect(await runSandboxed('[1, 2, 3].map((n) => n * n)')).toMatchObject({ ok: true, value: [1, 4, 9] });
    expect((await runSandboxed('while (true) {}', { timeoutMs: 100 })).ok).toBe(false);
  });
});
