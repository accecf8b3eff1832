import { clear, createStore, del, get, set, type UseStore } from 'idb-keyval';

/**
 * The last data this device saw, kept by the app itself in IndexedDB so a cold open without network shows
 * something (issue 19): the public config, who is signed in, the last inbox and the last conversation
 * opened. Never written by the service worker from API responses. Cleared on sign-out and when a different
 * person signs in on the same device.
 */
let store: UseStore | undefined;
const db = () => {
  store ??= createStore('switchboard-offline', 'last-seen');
  return store;
};

export interface Saved<T> {
  data: T;
  savedAt: string;
}

export async function saveOffline<T>(key: string, data: T): Promise<void> {
  try {
    await set(key, { data, savedAt: new Date().toISOString() } satisfies Saved<T>, db());
  } catch {
    // Private browsing or a full disk: the app works online without it.
  }
}

export async function readOffline<T>(key: string): Promise<Saved<T> | undefined> {
  try {
    return await get<Saved<T>>(key, db());
  } catch {
    return undefined;
  }
}

export async function forgetOffline(key: string): Promise<void> {
  await del(key, db()).catch(() => undefined);
}

/** Everything kept for the signed-in person (the public config stays: it is the same for everyone). */
export async function clearOfflineData(): Promise<void> {
  const config = await readOffline('config');
  await clear(db()).catch(() => undefined);
  if (config) await saveOffline('config', config.data);
}

/** Network failures (not answers from the server) are when the saved copy is shown. */
export function isOfflineError(e: unknown): boolean {
  return e instanceof TypeError || (typeof navigator !== 'undefined' && navigator.onLine === false);
}

type OfflineListener = (savedAt: string | null) => void;
const listeners = new Set<OfflineListener>();
let showingSince: string | null = null;

/** Screens report when they show a saved copy; the offline notice listens. */
export function reportOffline(savedAt: string | null) {
  showingSince = savedAt;
  for (const fn of listeners) fn(savedAt);
}
export function onOfflineChange(fn: OfflineListener): () => void {
  listeners.add(fn);
  fn(showingSince);
  return () => void listeners.delete(fn);
}

/**
 * Loads through the network and keeps the answer; without a network, answers the kept copy (and says so
 * through reportOffline). Server errors (4xx/5xx) are not hidden behind old data.
 */
export async function loadWithOfflineCopy<T>(key: string, load: () => Promise<T>): Promise<T> {
  try {
    const data = await load();
    void saveOffline(key, data);
    if (showingSince) reportOffline(null);
    return data;
  } catch (e) {
    if (!isOfflineError(e)) throw e;
    const saved = await readOffline<T>(key);
    if (!saved) throw e;
    reportOffline(saved.savedAt);
    return saved.data;
  }
}
