import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuiltBundles, ensureBundles } from '../build/bundles';
import { stageArtifact } from '../build/lambda-folder';

/** A function's handler module, loaded on first use. */
export type ModuleLoader = () => Promise<{ handler: unknown }>;

export interface HandlerModules {
  api: ModuleLoader;
  apiStream: ModuleLoader;
  webhook: ModuleLoader;
  twilioStatus: ModuleLoader;
  worker: ModuleLoader;
  emailPoll: ModuleLoader;
  liveSocket: ModuleLoader;
  /** Removes the staged artifacts (bundled mode). */
  dispose(): void;
}

/** The TypeScript sources, run through tsx: the default for `npm start` and the tests. */
export function sourceModules(): HandlerModules {
  return {
    api: () => import('../../functions/api'),
    apiStream: () => import('../../functions/api-stream'),
    webhook: () => import('../../functions/openphone-webhook'),
    twilioStatus: () => import('../../functions/twilio-status'),
    worker: () => import('../../functions/agent-worker'),
    emailPoll: () => import('../../functions/email-poll'),
    liveSocket: () => import('../../functions/live-socket'),
    dispose() {},
  };
}

let generation = 0;

/**
 * `--bundled`: the artifacts the CDK app builds (scripts/build/bundles.ts), each staged alone in a clean
 * folder as Lambda would run it (scripts/build/lambda-folder.ts). Every stack imports its own fresh module
 * instances (a query string per stack), so module-scope caches never leak from one stack to the next.
 */
export async function bundledModules(
  built?: BuiltBundles,
  log?: (line: string) => void,
): Promise<HandlerModules> {
  const bundles = built ?? (await ensureBundles({ log }));
  const stages = new Map<string, ReturnType<typeof stageArtifact>>();
  for (const fn of bundles.functions) stages.set(fn.name, stageArtifact(fn.dir));
  const tag = `stack=${++generation}`;
  const load =
    (name: string): ModuleLoader =>
    () => {
      const stage = stages.get(name);
      if (!stage) return Promise.reject(new Error(`No built artifact for ${name} in ${bundles.outdir}`));
      return import(`${pathToFileURL(join(stage.task, 'index.mjs')).href}?${tag}`);
    };
  return {
    api: load('api'),
    apiStream: load('api-stream'),
    webhook: load('openphone-webhook'),
    twilioStatus: load('twilio-status'),
    worker: load('agent-worker'),
    emailPoll: load('email-poll'),
    liveSocket: load('live-socket'),
    dispose() {
      for (const s of stages.values()) s.remove();
    },
  };
}
