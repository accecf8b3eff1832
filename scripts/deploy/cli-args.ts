import { parseArgs } from 'node:util';

/** `--stage` names the deployment (the same rule as infra/lib/deployment.ts); bad input → exit code 2. */
export class UsageError extends Error {}

const STAGE = /^[a-z][a-z0-9-]{0,15}$/;

export function parseDeployArgs(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }> = {}) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        stage: { type: 'string' },
        'dry-run': { type: 'boolean' },
        region: { type: 'string' },
        ...extra,
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  const stage = v.stage;
  if (typeof stage !== 'string' || !STAGE.test(stage))
    throw new UsageError('--stage is required: a short lower-case name such as dev or prod');
  return { stage, dryRun: v['dry-run'] === true, region: v.region as string | undefined, values: v };
}
