import { App, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type Deployment, parseDeployment, stackName } from './deployment';
import { acknowledgeNagFindings } from './nag-acknowledgements';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';
import { WafStack } from './waf-stack';

export interface BuildAppOptions {
  settings?: Record<string, string>;
  /** The deployment's shape (stage, domain, limits, WAF); default: stage dev with the defaults. */
  deployment?: Deployment;
  env?: StackProps['env'];
  webDist?: string;
  outdir?: string;
  /** false → skip esbuild (template-only tests of other deployment shapes; one bundled synth suffices). */
  bundle?: boolean;
}

/** Builds the CDK app; shared by `cdk synth`/`deploy` (bin/app.ts) and the infra tests. */
export function buildApp(opts: BuildAppOptions = {}) {
  const deployment = opts.deployment ?? parseDeployment({});
  const app = new App({
    ...(opts.outdir ? { outdir: opts.outdir } : {}),
    ...(opts.bundle === false ? { context: { 'aws:cdk:bundling-stacks': [] } } : {}),
  });
  const waf = deployment.waf ? wafStack(app, deployment, opts.env) : undefined;
  const stateful = new StatefulStack(app, stackName(deployment, 'Stateful'), { env: opts.env });
  const stateless = new StatelessStack(app, stackName(deployment, 'Stateless'), {
    env: opts.env,
    crossRegionReferences: waf !== undefined,
    deployment,
    table: stateful.table,
    queue: stateful.queue,
    dlq: stateful.dlq,
    secrets: stateful.secrets,
    settings: opts.settings,
    webDist: opts.webDist,
    webAclArn: waf?.webAcl.attrArn,
  });
  acknowledgeNagFindings(stateful, stateless);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, deployment, stateful, stateless, waf };
}

function wafStack(app: App, deployment: Deployment, env: StackProps['env']) {
  // A cross-region reference needs both ends' account and region at synth time.
  if (!env?.account || !env.region) {
    throw new Error(
      'WAF is on (the default for prod): the web ACL lives in us-east-1 and is wired to CloudFront across regions, which needs a concrete account and region. Run with AWS credentials configured (CDK_DEFAULT_ACCOUNT/CDK_DEFAULT_REGION), or set WAF=false.',
    );
  }
  return new WafStack(app, stackName(deployment, 'Waf'), {
    env: { account: env.account, region: 'us-east-1' },
    crossRegionReferences: true,
    webhookRateLimit: deployment.WAF_WEBHOOK_RATE_LIMIT,
  });
}
