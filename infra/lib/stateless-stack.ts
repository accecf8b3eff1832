import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { SCHEDULES } from '../../shared/src/schedules';
import { EVENTS_MAX_RECEIVE_COUNT, WORKER_TIMEOUT_SECONDS } from './stateful-stack';
import { addTimers } from './timers';
import { TsFunction } from './ts-function';

export interface StatelessStackProps extends StackProps {
  table: Table;
  queue: Queue;
  dlq: Queue;
  secret: Secret;
  /** Non-secret settings passed as environment variables (team timezone, allowed domains, …). */
  settings?: Record<string, string>;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Functions, the HTTP API, schedules, the PWA's hosting and the alarms: all redeployable, no data. */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly functions: Record<string, TsFunction>;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const environment = {
      TABLE_NAME: props.table.tableName,
      EVENTS_QUEUE_URL: props.queue.queueUrl,
      DLQ_URL: props.dlq.queueUrl,
      SECRETS_ARN: props.secret.secretArn,
      ...props.settings,
    };
    const make = (
      name: string,
      entry: string,
      extra: Partial<ConstructorParameters<typeof TsFunction>[2]> = {},
    ) => {
      const f = new TsFunction(this, name, {
        entry: join(ROOT, entry),
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        projectRoot: ROOT,
        environment,
        ...extra,
      });
      props.table.grantReadWriteData(f.fn);
      props.secret.grantRead(f.fn);
      return f;
    };

    const api = make('Api', 'functions/api.ts', { memorySize: 1024 });
    // The same app, response-streaming, for /api/chat: API Gateway would buffer the UI message stream.
    const apiStream = make('ApiStream', 'functions/api-stream.ts', {
      memorySize: 1024,
      timeout: Duration.seconds(60),
    });
    const apiStreamUrl = apiStream.fn.addFunctionUrl({
      authType: FunctionUrlAuthType.NONE,
      invokeMode: InvokeMode.RESPONSE_STREAM,
    });
    const webhook = make('OpenPhoneWebhook', 'functions/openphone-webhook.ts', {
      timeout: Duration.seconds(10),
    });
    const twilioStatus = make('TwilioStatus', 'functions/twilio-status.ts', {
      timeout: Duration.seconds(10),
    });
    const emailPoll = make('EmailPoll', 'functions/email-poll.ts', { timeout: Duration.seconds(60) });
    const worker = make('AgentWorker', 'functions/agent-worker.ts', {
      timeout: Duration.seconds(WORKER_TIMEOUT_SECONDS),
      memorySize: 1536,
      reservedConcurrentExecutions: undefined,
    });
    this.functions = { api, apiStream, webhook, twilioStatus, emailPoll, worker };
    for (const f of [api, apiStream, webhook, emailPoll, worker]) props.queue.grantSendMessages(f.fn);
    props.dlq.grantSendMessages(worker.fn);
    // The worker sets and clears card timers; the API sets a retried card's expiry.
    const timers = addTimers(this, {
      queue: props.queue,
      maxReceiveCount: EVENTS_MAX_RECEIVE_COUNT,
      functions: [worker.fn, api.fn],
    });
    for (const f of [worker, api])
      for (const [k, v] of Object.entries(timers.environment)) f.fn.addEnvironment(k, v);
    worker.fn.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: 5,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(1),
      }),
    );

    this.api = new HttpApi(this, 'HttpApi', {
      corsPreflight: {
        allowOrigins: ['*'],
        allowMethods: [CorsHttpMethod.ANY],
        allowHeaders: ['authorization', 'content-type'],
      },
    });
    const integrate = (name: string, f: TsFunction) => new HttpLambdaIntegration(name, f.fn);
    const apiIntegration = integrate('ApiIntegration', api);
    this.api.addRoutes({ path: '/health', methods: [HttpMethod.GET], integration: apiIntegration });
    this.api.addRoutes({ path: '/api/{proxy+}', methods: [HttpMethod.ANY], integration: apiIntegration });
    this.api.addRoutes({
      path: '/webhooks/openphone',
      methods: [HttpMethod.POST],
      integration: integrate('WebhookIntegration', webhook),
    });
    this.api.addRoutes({
      path: '/webhooks/twilio/status',
      methods: [HttpMethod.POST],
      integration: integrate('TwilioIntegration', twilioStatus),
    });

    for (const s of SCHEDULES) {
      new Rule(this, `Schedule-${s.name}`, {
        schedule: Schedule.rate(Duration.minutes(s.everyMinutes)),
        targets: [new LambdaFunction(emailPoll.fn, { event: RuleTargetInput.fromObject(s.input) })],
      });
    }

    // The PWA: static files on a private bucket behind CloudFront; /api and /webhooks go to the HTTP API.
    const site = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    const apiOrigin = new HttpOrigin(`${this.api.apiId}.execute-api.${this.region}.${this.urlSuffix}`);
    const apiBehavior = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    };
    const distribution = new Distribution(this, 'Cdn', {
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(site),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      },
      additionalBehaviors: {
        '/api/chat': { ...apiBehavior, origin: new FunctionUrlOrigin(apiStreamUrl) },
        '/api/*': apiBehavior,
        '/webhooks/*': apiBehavior,
        '/health': apiBehavior,
      },
      errorResponses: [{ httpStatus: 404, responseHttpStatus: 200, responsePagePath: '/index.html' }],
    });
    const webDist = join(ROOT, 'web', 'dist');
    if (existsSync(webDist)) {
      new BucketDeployment(this, 'DeploySite', {
        sources: [Source.asset(webDist)],
        destinationBucket: site,
        distribution,
      });
    }

    new Alarm(this, 'DlqNotEmpty', {
      metric: props.dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'An event could not be processed and was dead-lettered',
    });
    for (const [name, f] of Object.entries(this.functions)) {
      new Alarm(this, `Errors-${name}`, {
        metric: f.fn.metricErrors({ period: Duration.minutes(5) }),
        threshold: 1,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `${name} function errors`,
      });
    }

    new CfnOutput(this, 'AppUrl', { value: `https://${distribution.distributionDomainName}` });
    new CfnOutput(this, 'ApiUrl', { value: this.api.apiEndpoint });
  }
}
