import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The OpenPhone emulator's workspace on disk (`<dataDir>/openphone.json`), so what Quo would remember — texts
 * received and sent, contacts, calls, media — survives a killed stack: the mid-send crash test restarts the stack
 * and the worker's reconcile must find the message the emulator accepted before the kill. Written whole after
 * each change, to a temporary file then renamed, so a kill mid-write leaves the previous state, never half a file.
 */
export interface StoredWorkspace<M, C, K, S, T> {
  version: 1;
  messages: M[];
  /** Ids of the messages created through POST /v1/messages, in order. */
  sentIds: string[];
  contacts: C[];
  calls: K[];
  summaries: Array<[string, S]>;
  transcripts: Array<[string, T]>;
  media: Record<string, { type: string; base64: string }>;
}

export function workspaceFile(dataDir: string) {
  return join(dataDir, 'openphone.json');
}

export function loadWorkspace<M, C, K, S, T>(dataDir: string): StoredWorkspace<M, C, K, S, T> | null {
  const file = workspaceFile(dataDir);
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as StoredWorkspace<M, C, K, S, T>;
  if (parsed.version !== 1) throw new Error(`${file}: unknown version ${String(parsed.version)}`);
  return parsed;
}

export function saveWorkspace<M, C, K, S, T>(dataDir: string, w: StoredWorkspace<M, C, K, S, T>) {
  mkdirSync(dataDir, { recursive: true });
  const file = workspaceFile(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(w));
  renameSync(tmp, file);
}

/**
 * Quo's documented limit: 10 requests per second per API key, "until the next second's budget opens up" — a
 * fixed one-second window. `clock` is wall time by default (not the emulator's injectable business clock, which
 * tests freeze).
 */
export function perSecondLimiter(limit: number, clock: () => number = Date.now) {
  const windows = new Map<string, { second: number; count: number }>();
  return {
    /** True when this request is within the key's budget for the current second. */
    take(key: string): boolean {
      const second = Math.floor(clock() / 1000);
      const w = windows.get(key);
      if (!w || w.second !== second) {
        windows.set(key, { second, count: 1 });
        return true;
      }
      w.count += 1;
      return w.count <= limit;
    },
  };
}
