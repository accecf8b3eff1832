import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssetManifestArtifact, type CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import { buildApp } from '../../infra/lib/app';
import { parseDeployment } from '../../infra/lib/deployment';

export interface StackPlan {
  stackName: string;
  region: string;
  /** Files (Lambda bundles, the PWA, the template itself) published to the bootstrap bucket first. */
  fileAssets: number;
  templateUrl: string;
  resources: number;
}

/** The capabilities `cdk deploy` passes: the stacks create IAM roles and use CDK's macros. */
const CAPABILITIES = ['CAPABILITY_IAM', 'CAPABILITY_NAMED_IAM', 'CAPABILITY_AUTO_EXPAND'];
const CHANGE_SET = 'cdk-deploy-change-set';

/**
 * Synthesizes the stage offline (cdk-nag runs as a validation plugin: a finding without an acknowledgement
 * fails here) and lists the stacks in deployment order. Bundling is skipped for the plan — the template's
 * shape does not depend on the bundles' bytes — so the dry run is fast and needs no network.
 */
export function planDeploy(env: Record<string, string | undefined>, stage: string): StackPlan[] {
  const deployment = parseDeployment({ ...env, STAGE: stage });
  const outdir = mkdtempSync(join(tmpdir(), 'switchboard-plan-'));
  try {
    const { app } = buildApp({
      deployment,
      env: { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION ?? env.AWS_REGION },
      outdir,
      bundle: false,
    });
    const assembly = app.synth();
    return inDeployOrder(assembly.stacks).map(describeStack);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function inDeployOrder(stacks: CloudFormationStackArtifact[]): CloudFormationStackArtifact[] {
  const out: CloudFormationStackArtifact[] = [];
  const visit = (s: CloudFormationStackArtifact) => {
    if (out.includes(s)) return;
    for (const d of s.dependencies) {
      const dep = stacks.find((x) => x.id === d.id);
      if (dep) visit(dep);
    }
    out.push(s);
  };
  for (const s of stacks) visit(s);
  return out;
}

function describeStack(s: CloudFormationStackArtifact): StackPlan {
  const manifest = s.dependencies.find((d): d is AssetManifestArtifact => d instanceof AssetManifestArtifact);
  const files = manifest
    ? Object.keys((JSON.parse(readFileSync(manifest.file, 'utf8')) as { files?: object }).files ?? {}).length
    : 0;
  const region = s.environment.region === 'unknown-region' ? '<your region>' : s.environment.region;
  return {
    stackName: s.stackName,
    region,
    fileAssets: files,
    templateUrl: s.stackTemplateAssetObjectUrl ?? '(inline template)',
    resources: Object.keys((s.template as { Resources?: object }).Resources ?? {}).length,
  };
}

/**
 * The calls `cdk deploy --all` makes for each stack, in order (change-set deployment, CDK's default): the
 * bootstrap version check, asset publishing, then create → describe → execute the change set and wait.
 */
export function describeDeployCalls(plans: StackPlan[]): string[] {
  const lines = [
    'ssm:GetParameter {"Name":"/cdk-bootstrap/hnb659fds/version"}  (the bootstrap stack is there)',
  ];
  for (const p of plans) {
    const name = JSON.stringify(p.stackName);
    lines.push(
      `— ${p.stackName} (${p.region}, ${p.resources} resources)`,
      `cloudformation:DescribeStacks {"StackName":${name}}  (CREATE if absent, else UPDATE)`,
      `s3:PutObject ×${p.fileAssets}  (file assets, template included, to the bootstrap bucket; skipped when already there)`,
      `cloudformation:CreateChangeSet {"StackName":${name},"ChangeSetName":"${CHANGE_SET}","ChangeSetType":"CREATE|UPDATE","TemplateURL":${JSON.stringify(p.templateUrl)},"Capabilities":${JSON.stringify(CAPABILITIES)}}`,
      `cloudformation:DescribeChangeSet {"StackName":${name},"ChangeSetName":"${CHANGE_SET}"}  (until CREATE_COMPLETE; an empty change set is deleted and the stack skipped)`,
      `cloudformation:ExecuteChangeSet {"StackName":${name},"ChangeSetName":"${CHANGE_SET}"}`,
      `cloudformation:DescribeStackEvents / DescribeStacks {"StackName":${name}}  (until *_COMPLETE; a *_ROLLBACK_* stops the deploy)`,
    );
  }
  return lines;
}
