import { App, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { acknowledgeNagFindings } from './nag-acknowledgements';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

/** Builds the CDK app; shared by `cdk synth`/`deploy` (bin/app.ts) and the infra tests. */
export function buildApp(opts: { settings?: Record<string, string>; env?: StackProps['env'] } = {}) {
  const app = new App();
  const stateful = new StatefulStack(app, 'SwitchboardStateful', { env: opts.env });
  const stateless = new StatelessStack(app, 'SwitchboardStateless', {
    env: opts.env,
    table: stateful.table,
    queue: stateful.queue,
    dlq: stateful.dlq,
    secret: stateful.secret,
    settings: opts.settings,
  });
  acknowledgeNagFindings(stateful, stateless);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stateful, stateless };
}
