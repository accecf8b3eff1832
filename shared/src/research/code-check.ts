/**
 * The check between writing code and running it (the fallback lane of seed 000: codegen → security_check →
 * sandbox_run). The sandbox already has no network, files, modules or timers; this refuses code that even
 * reaches for them, so a model's attempt is reported plainly instead of failing somewhere inside QuickJS.
 * Allowed: the language, Math/JSON/Date/Array/Object/String/Number, `console.log`, and the helpers the node
 * is given (INPUTS, FACTS, NOW, TIMEZONE).
 */
const FORBIDDEN: Array<{ re: RegExp; why: string }> = [
  { re: /\b(require|import)\s*[(\s'"`{*]/, why: 'modules are not available' },
  { re: /\bfetch\s*\(|\bXMLHttpRequest\b|\bWebSocket\b|\bnavigator\b/, why: 'no network' },
  {
    re: /\b(process|Deno|Bun|__dirname|__filename)\b|\bfs\b\s*\.|\bchild_process\b/,
    why: 'no files or processes',
  },
  { re: /\b(eval|Function)\s*\(|\bnew\s+Function\b/, why: 'no code generation at run time' },
  { re: /\b(globalThis|global|self|window)\b/, why: 'no access to the global object' },
  {
    re: /\b(setTimeout|setInterval|queueMicrotask|Atomics|SharedArrayBuffer)\b/,
    why: 'no timers or threads',
  },
  { re: /\b(constructor|__proto__|prototype)\b/, why: 'no reaching into prototypes' },
];

export const MAX_COMPUTE_CODE_CHARS = 8_000;

export type CodeCheck = { ok: true } | { ok: false; reason: string };

export function checkComputeCode(code: string): CodeCheck {
  if (!code.trim()) return { ok: false, reason: 'the code is empty' };
  if (code.length > MAX_COMPUTE_CODE_CHARS)
    return { ok: false, reason: `the code is over ${MAX_COMPUTE_CODE_CHARS} characters` };
  for (const f of FORBIDDEN) {
    const m = code.match(f.re);
    if (m) return { ok: false, reason: `“${m[0].trim()}” is not allowed: ${f.why}` };
  }
  return { ok: true };
}
