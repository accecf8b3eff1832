import { resolve } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AFTER_BUNDLE_SCRIPT, BUNDLE } from './bundle-settings';

export interface TsFunctionProps extends Omit<NodejsFunctionProps, 'entry' | 'runtime'> {
  /** Path of the handler module relative to the repository root, e.g. `functions/api.ts`. */
  entry: string;
}

export { BUNDLE };

/**
 * The team defaults for every function: Node 24 on arm64, esbuild bundling on this machine (no Docker),
 * ESM without source maps (see bundle-settings.ts), the AWS SDK left to the runtime (it ships v3), and an explicit log group with a
 * retention so logs are not kept forever.
 */
export class TsFunction extends Construct {
  readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: TsFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const sourceMap = BUNDLE.sourceMap || this.node.tryGetContext('switchboard:sourcemap') === true;
    this.fn = new NodejsFunction(this, 'Fn', {
      memorySize: 512,
      timeout: Duration.seconds(30),
      ...props,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: {
        ...(sourceMap ? { NODE_OPTIONS: BUNDLE.sourceMapNodeOptions } : {}),
        STAGE: 'aws',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        sourceMap,
        minify: BUNDLE.minify,
        target: BUNDLE.target,
        forceDockerBundling: false,
        externalModules: [...BUNDLE.external],
        banner: BUNDLE.banner,
        // `-c switchboard:metafile=true` (scripts/build/bundles.ts sets it): esbuild's metafile beside each
        // bundle, so `npm run bench bundles` can name what makes a bundle big. Off for deploys.
        metafile: this.node.tryGetContext('switchboard:metafile') === true,
        // Files the bundle loads at run time beside itself (the run_code sandbox worker and its wasm, pdf.js):
        // added by a post-bundle step only to the artifacts whose code refers to them.
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // …and, before that, the handler bundled again with code splitting (scripts/build/after-bundle.ts).
          afterBundling: (_in: string, outputDir: string) => [
            [
              process.execPath,
              AFTER_BUNDLE_SCRIPT.tsx,
              AFTER_BUNDLE_SCRIPT.script,
              outputDir,
              ...(BUNDLE.splitting ? ['--split', resolve(props.entry)] : []),
            ]
              .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
              .join(' '),
          ],
        },
        ...props.bundling,
      },
    });
  }
}
