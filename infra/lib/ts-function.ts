import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, type NodejsFunctionProps, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface TsFunctionProps extends Omit<NodejsFunctionProps, 'entry' | 'runtime'> {
  /** Path of the handler module relative to the repository root, e.g. `functions/api.ts`. */
  entry: string;
}

/**
 * The esbuild settings every function is bundled with; the bundle benchmark builds its baseline handlers
 * with the same ones (scripts/bench/bundles.bench.ts), so a ratio compares like with like.
 */
export const BUNDLE = {
  target: 'node22',
  minify: true,
  sourceMap: true,
  /** The Lambda runtime ships the AWS SDK v3; bundling it again would only add megabytes. */
  external: ['@aws-sdk/*'],
  // Some CJS dependencies call require(); give the ESM bundle one.
  banner: "import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);",
  nodeOptions: '--enable-source-maps',
} as const;

/**
 * The team defaults for every function: Node 22 on arm64, esbuild bundling on this machine (no Docker),
 * ESM with source maps, the AWS SDK left to the runtime (it ships v3), and an explicit log group with a
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
    this.fn = new NodejsFunction(this, 'Fn', {
      memorySize: 512,
      timeout: Duration.seconds(30),
      ...props,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: {
        ...(BUNDLE.nodeOptions ? { NODE_OPTIONS: BUNDLE.nodeOptions } : {}),
        STAGE: 'aws',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        sourceMap: BUNDLE.sourceMap,
        minify: BUNDLE.minify,
        target: BUNDLE.target,
        forceDockerBundling: false,
        externalModules: [...BUNDLE.external],
        banner: BUNDLE.banner,
        // `-c switchboard:metafile=true` (scripts/build/bundles.ts sets it): esbuild's metafile beside each
        // bundle, so `npm run bench bundles` can name what makes a bundle big. Off for deploys.
        metafile: this.node.tryGetContext('switchboard:metafile') === true,
        ...props.bundling,
      },
    });
  }
}
