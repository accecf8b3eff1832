import { spawnSync } from 'node:child_process';
import { parseDeployArgs, UsageError } from './cli-args';
import { describeDeployCalls, planDeploy } from './deploy-plan';

export interface DeployIo {
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Runs a command (inherits stdio); returns its exit code. Tests never reach it (dry run). */
  run?: (cmd: string, args: string[], env: Record<string, string | undefined>) => number;
}

/**
 * `npm run deploy -- --stage prod [--dry-run]`: validate the stage's settings, synthesize it offline with
 * cdk-nag, then build the PWA and `cdk deploy --all` (which synthesizes again with the bundles). The dry run
 * stops after the offline synth and prints every call the deploy would make.
 */
export async function runDeploy(argv: string[], io: DeployIo): Promise<number> {
  try {
    const { stage, dryRun, region } = parseDeployArgs(argv);
    const env = { ...io.env, STAGE: stage, ...(region ? { CDK_DEFAULT_REGION: region } : {}) };
    let plans: ReturnType<typeof planDeploy>;
    try {
      plans = planDeploy(env, stage);
    } catch (e) {
      // Bad settings (deployment.ts names the variable) or a cdk-nag finding: nothing was deployed.
      throw new UsageError(`synth failed: ${(e as Error).message}`);
    }
    io.out(`Stage ${stage}: ${plans.map((p) => p.stackName).join(' → ')} (synth and cdk-nag passed)`);
    if (dryRun) {
      io.out(
        'Dry run: the deploy would run `npm run build:web`, then `cdk deploy --all`, which makes these calls:',
      );
      for (const line of describeDeployCalls(plans)) io.out(line);
      return 0;
    }
    const run = io.run ?? defaultRun;
    if (run('npm', ['run', 'build:web'], env) !== 0) throw new Error('npm run build:web failed');
    const code = run('npx', ['cdk', 'deploy', '--all', '--require-approval', 'broadening'], env);
    if (code !== 0) throw new Error(`cdk deploy exited with ${code}`);
    io.out(
      `Deployed ${stage}. Next: npm run secrets:put -- --stage ${stage} --from .env (first deploy), npm run doctor.`,
    );
    return 0;
  } catch (e) {
    io.err(`deploy: ${(e as Error).message}`);
    return e instanceof UsageError ? 2 : 1;
  }
}

function defaultRun(cmd: string, args: string[], env: Record<string, string | undefined>): number {
  return spawnSync(cmd, args, { stdio: 'inherit', env: env as NodeJS.ProcessEnv }).status ?? 1;
}
