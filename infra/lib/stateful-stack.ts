import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../shared/src/adapters/dynamo/table';
import { SECRET_GROUP_NAMES, SECRET_GROUPS, type SecretGroup } from '../../shared/src/secret-groups';

/** The worker's timeout; the queue's visibility timeout is 6× this (AWS's guidance for Lambda consumers). */
export const WORKER_TIMEOUT_SECONDS = 120;
/** Receives before the events queue redrives a message to the DLQ; the worker's last attempt knows it. */
export const EVENTS_MAX_RECEIVE_COUNT = 5;

/** Everything that holds data, apart from what can be redeployed freely (SPEC conventions §10). */
export class StatefulStack extends Stack {
  readonly table: Table;
  readonly queue: Queue;
  readonly dlq: Queue;
  /** One secret per function group (shared/src/secret-groups.ts); each function reads only its own. */
  readonly secrets: Record<SecretGroup, Secret>;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const def = tableDefinition('unused');
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiresAt',
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of def.GlobalSecondaryIndexes ?? []) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.IndexName as string,
        partitionKey: { name: 'gsi1pk', type: AttributeType.STRING },
        sortKey: { name: 'gsi1sk', type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    this.dlq = new Queue(this, 'EventsDlq', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Events', {
      visibilityTimeout: Duration.seconds(WORKER_TIMEOUT_SECONDS * 6),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: EVENTS_MAX_RECEIVE_COUNT },
    });

    const stage = this.stackName.replace(/-Stateful$/, '');
    this.secrets = Object.fromEntries(
      SECRET_GROUP_NAMES.map((group) => [
        group,
        new Secret(this, `Secrets-${group}`, {
          secretName: `${stage}/${group}`,
          description: `Switchboard ${group} credentials: JSON of ${SECRET_GROUPS[group].join(', ')} (npm run secrets:put)`,
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      ]),
    ) as Record<SecretGroup, Secret>;
  }
}
