import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Arn, CfnOutput, Duration, Stack, type StackProps, Token } from 'aws-cdk-lib';
import { DomainName, HttpApi, HttpMethod, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { SCHEDULES } from '../../shared/src/schedules';
import type { SecretGroup } from '../../shared/src/secret-groups';
import type { Deployment } from './deployment';
import { WebDistribution } from './edge/web-distribution';
import { addLiveSocket } from './live-socket';
import { addObservability, metricsNamespace } from './observability';
import { EVENTS_MAX_RECEIVE_COUNT, WORKER_TIMEOUT_SECONDS } from './stateful-stack';
import { addTimers } from './timers';
import { TsFunction } from './ts-function';

export interface StatelessStackProps extends StackProps {
  deployment: Deployment;
  table: Table;
  queue: Queue;
  dlq: Queue;
  secrets: Record<SecretGroup, Secret>;
  /** Non-secret settings passed as environment variables (team timezone, allowed domains, …). */
  settings?: Record<string, string>;
  /** The built PWA; default web/dist when it exists. */
  webDist?: string;
  /** The CLOUDFRONT-scoped WAF web ACL (from the us-east-1 edge stack), when the deployment has one. */
  webAclArn?: string;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** What the code does on the table: items and queries, never Scan (no code path scans). */
const TABLE_INGRESS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:Query',
] as const;
/** The API and the worker also batch (fact store writes, batched reads). */
const TABLE_FULL = [...TABLE_INGRESS, 'dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'] as const;

/** Functions, the HTTP API, schedules, the PWA's hosting and the alarms: all redeployable, no data. */
export class StatelessStack extends Stack {
  readonly api: HttpApi;
  readonly functions: Record<string, TsFunction>;
  readonly web: WebDistribution;
  readonly observability: ReturnType<typeof addObservability>;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const d = props.deployment;
    const publicUrl = this.publicBaseUrl(d);
    const environment = {
      TABLE_NAME: props.table.tableName,
      EVENTS_QUEUE_URL: props.queue.queueUrl,
      DLQ_URL: props.dlq.queueUrl,
      METRICS_NAMESPACE: metricsNamespace(d.STAGE),
      ...props.settings,
      ...publicUrl.environment,
    };
    const make = (
      name: string,
      entry: string,
      access: { secrets: SecretGroup[]; table: readonly string[] },
      extra: Partial<ConstructorParameters<typeof TsFunction>[2]> = {},
    ) => {
      const secrets = access.secrets.map((g) => props.secrets[g]);
      const f = new TsFunction(this, name, {
        entry: join(ROOT, entry),
        depsLockFilePath: join(ROOT, 'package-lock.json'),
        projectRoot: ROOT,
        environment: { ...environment, SECRETS_ARNS: secrets.map((s) => s.secretArn).join(',') },
        ...extra,
      });
      props.table.grant(f.fn, ...access.table);
      for (const s of secrets) s.grantRead(f.fn);
      if (publicUrl.parameterArn) {
        f.fn.addToRolePolicy(
          new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [publicUrl.parameterArn] }),
        );
      }
      return f;
    };

    // HTTP-facing functions get a small reserved concurrency: a flood of requests costs at most that many
    // instances, and the rest of the account keeps its capacity.
    const api = make(
      'Api',
      'functions/api.ts',
      { secrets: ['api'], table: TABLE_FULL },
      {
        memorySize: 1024,
        reservedConcurrentExecutions: d.API_CONCURRENCY,
      },
    );
    // The same app, response-streaming, for /api/chat: API Gateway would buffer the UI message stream. A chat
    // turn runs here with the worker's use case (issue 19: the model's text streams as it is written), so it
    // has the worker's keys and timeout; the turn's queued backstop copy waits longer than this timeout.
    const apiStream = make(
      'ApiStream',
      'functions/api-stream.ts',
      { secrets: ['api', 'worker', 'paging'], table: TABLE_FULL },
      {
        memorySize: 1536,
        timeout: Duration.seconds(WORKER_TIMEOUT_SECONDS),
        reservedConcurrentExecutions: d.CHAT_CONCURRENCY,
      },
    );
    apiStream.fn.addEnvironment('CHAT_BACKSTOP_DELAY_SECONDS', String(WORKER_TIMEOUT_SECONDS + 60));
    // AWS_IAM: only CloudFront (origin access control, which signs each request) may invoke it.
    const apiStreamUrl = apiStream.fn.addFunctionUrl({
      authType: FunctionUrlAuthType.AWS_IAM,
      invokeMode: InvokeMode.RESPONSE_STREAM,
    });
    const ingress = { secrets: ['ingress'] as SecretGroup[], table: TABLE_INGRESS };
    const webhook = make('OpenPhoneWebhook', 'functions/openphone-webhook.ts', ingress, {
      timeout: Duration.seconds(10),
      reservedConcurrentExecutions: d.WEBHOOK_CONCURRENCY,
    });
    const twilioStatus = make('TwilioStatus', 'functions/twilio-status.ts', ingress, {
      timeout: Duration.seconds(10),
      reservedConcurrentExecutions: d.WEBHOOK_CONCURRENCY,
    });
    // The Gmail poll reads with the worker's Google key; it writes like an ingress.
    const emailPoll = make(
      'EmailPoll',
      'functions/email-poll.ts',
      { secrets: ['worker'], table: TABLE_INGRESS },
      { timeout: Duration.seconds(60) },
    );
    // No reserved concurrency on the SQS consumer: throttled receives count toward the DLQ's receive limit.
    // The event source's maxConcurrency bounds it instead.
    const worker = make(
      'AgentWorker',
      'functions/agent-worker.ts',
      { secrets: ['worker', 'paging'], table: TABLE_FULL },
      {
        timeout: Duration.seconds(WORKER_TIMEOUT_SECONDS),
        memorySize: 1536,
      },
    );
    // Drive PDFs are read here (issue 16): pdf.js (1.6 MB) in this artifact alone, so the worker and the
    // streaming API stay under 5 MB. No table, no secrets: it downloads the one file with the short-lived
    // Google token its caller passes, and only those two functions may invoke it.
    const pdfText = new TsFunction(this, 'PdfText', {
      entry: join(ROOT, 'functions/pdf-text.ts'),
      depsLockFilePath: join(ROOT, 'package-lock.json'),
      projectRoot: ROOT,
      memorySize: 1024,
      timeout: Duration.seconds(60),
      // The shared settings (GOOGLE_API_BASE among them); it reads only that one.
      environment,
    });
    for (const f of [worker, apiStream]) {
      // The unqualified ARN only (grantInvoke would add `:*`, every version, which cdk-nag refuses).
      f.fn.addToRolePolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [pdfText.fn.functionArn] }),
      );
      f.fn.addEnvironment('PDF_TEXT_FUNCTION', pdfText.fn.functionName);
    }
    // The live channel's $connect/$disconnect/$default: verifies the session, keeps the connection.
    const liveSocket = make(
      'LiveSocket',
      'functions/live-socket.ts',
      { secrets: ['api'], table: TABLE_INGRESS },
      { timeout: Duration.seconds(10), reservedConcurrentExecutions: d.API_CONCURRENCY },
    );
    const live = addLiveSocket(this, {
      socketFn: liveSocket,
      // Every function that writes conversations, messages or cards tells open apps (the API also names the
      // socket in its public config).
      publishers: [api, apiStream, worker],
      throttle: { rateLimit: d.API_RATE_LIMIT, burstLimit: d.API_BURST_LIMIT },
    });
    // The alarm topic's push to admins: reads the subscriptions partition and removes dead devices, nothing else.
    const alarmPush = make(
      'AlarmPush',
      'functions/alarm-push.ts',
      { secrets: ['alarm'], table: ['dynamodb:Query', 'dynamodb:DeleteItem'] },
      { timeout: Duration.seconds(30), reservedConcurrentExecutions: 1 },
    );
    this.functions = {
      api,
      apiStream,
      webhook,
      twilioStatus,
      emailPoll,
      worker,
      pdfText,
      liveSocket,
      alarmPush,
    };
    for (const f of [api, apiStream, webhook, emailPoll, worker]) props.queue.grantSendMessages(f.fn);
    props.dlq.grantSendMessages(worker.fn);
    // The worker sets and clears card timers; the API sets a retried card's expiry.
    const timers = addTimers(this, {
      queue: props.queue,
      maxReceiveCount: EVENTS_MAX_RECEIVE_COUNT,
      functions: [worker.fn, api.fn, apiStream.fn],
    });
    for (const f of [worker, api, apiStream])
      for (const [k, v] of Object.entries(timers.environment)) f.fn.addEnvironment(k, v);
    worker.fn.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: 5,
        reportBatchItemFailures: true,
        maxBatchingWindow: Duration.seconds(1),
        maxConcurrency: d.WORKER_CONCURRENCY,
      }),
    );

    const apiDomain = this.apiDomain(d);
    this.api = this.httpApi(d, apiDomain, api, webhook, twilioStatus);

    for (const s of SCHEDULES) {
      new Rule(this, `Schedule-${s.name}`, {
        schedule: Schedule.rate(Duration.minutes(s.everyMinutes)),
        targets: [new LambdaFunction(emailPoll.fn, { event: RuleTargetInput.fromObject(s.input) })],
      });
    }

    const webDist = props.webDist ?? join(ROOT, 'web', 'dist');
    this.web = new WebDistribution(this, 'Web', {
      api: this.api,
      apiDomain,
      chatUrl: apiStreamUrl,
      domainName: d.DOMAIN_NAME,
      certificate: d.CERTIFICATE_ARN
        ? Certificate.fromCertificateArn(this, 'Certificate', d.CERTIFICATE_ARN)
        : undefined,
      clerkPublishableKey: props.settings?.CLERK_PUBLISHABLE_KEY,
      liveSocketOrigin: live.origin,
      webDist: existsSync(webDist) ? webDist : undefined,
      webAclArn: props.webAclArn,
    });
    if (publicUrl.parameterName) {
      // Written here, read by the functions at run time: their environment cannot name the distribution
      // that fronts them (a cycle through the function URL origin).
      new StringParameter(this, 'PublicBaseUrl', {
        parameterName: publicUrl.parameterName,
        stringValue: `https://${this.web.distribution.distributionDomainName}`,
        description: 'Where the PWA and the API are reached (Clerk authorized party, Twilio callbacks)',
      });
    }

    this.observability = addObservability(this, {
      stage: d.STAGE,
      functions: Object.fromEntries(Object.entries(this.functions).map(([k, f]) => [k, f.fn])),
      queue: props.queue,
      dlq: props.dlq,
      api: this.api,
      alarmPush: alarmPush.fn,
      ...(d.ALARM_EMAIL ? { alarmEmail: d.ALARM_EMAIL } : {}),
    });
    new CfnOutput(this, 'AppUrl', {
      value: d.DOMAIN_NAME
        ? `https://${d.DOMAIN_NAME}`
        : `https://${this.web.distribution.distributionDomainName}`,
    });
    new CfnOutput(this, 'DistributionDomain', { value: this.web.distribution.distributionDomainName });
  }

  /** A custom domain is set directly; otherwise the functions read the distribution's domain from SSM. */
  private publicBaseUrl(d: Deployment) {
    if (d.DOMAIN_NAME) {
      return { environment: { PUBLIC_BASE_URL: `https://${d.DOMAIN_NAME}` } as Record<string, string> };
    }
    const parameterName = `/switchboard/${d.STAGE}/public-base-url`;
    const parameterArn = Arn.format(
      { service: 'ssm', resource: 'parameter', resourceName: parameterName.slice(1) },
      this,
    );
    return { environment: { PUBLIC_BASE_URL_PARAMETER: parameterName }, parameterName, parameterArn };
  }

  /** With a custom domain the HTTP API answers only on it, so CloudFront is the one way in. */
  private apiDomain(d: Deployment) {
    if (!d.DOMAIN_NAME) return undefined;
    const arn = d.API_CERTIFICATE_ARN ?? d.CERTIFICATE_ARN;
    if (!arn) return undefined;
    const certRegion = arn.split(':')[3];
    if (!Token.isUnresolved(this.region) && certRegion !== this.region) {
      throw new Error(
        `The HTTP API's custom domain needs a certificate in ${this.region}, not ${certRegion}: set API_CERTIFICATE_ARN (CERTIFICATE_ARN stays the us-east-1 one for CloudFront).`,
      );
    }
    return new DomainName(this, 'ApiDomain', {
      domainName: d.DOMAIN_NAME,
      certificate: Certificate.fromCertificateArn(this, 'ApiCertificate', arn),
    });
  }

  private httpApi(
    d: Deployment,
    apiDomain: DomainName | undefined,
    api: TsFunction,
    webhook: TsFunction,
    twilioStatus: TsFunction,
  ) {
    // No CORS: the PWA and the API share CloudFront's origin, and nothing else should call the API.
    const httpApi = new HttpApi(this, 'HttpApi', {
      createDefaultStage: false,
      disableExecuteApiEndpoint: apiDomain !== undefined,
    });
    new HttpStage(this, 'HttpApiStage', {
      httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: d.API_RATE_LIMIT, burstLimit: d.API_BURST_LIMIT },
      ...(apiDomain ? { domainMapping: { domainName: apiDomain } } : {}),
    });
    const integrate = (name: string, f: TsFunction) => new HttpLambdaIntegration(name, f.fn);
    const apiIntegration = integrate('ApiIntegration', api);
    httpApi.addRoutes({ path: '/health', methods: [HttpMethod.GET], integration: apiIntegration });
    httpApi.addRoutes({ path: '/api/{proxy+}', methods: [HttpMethod.ANY], integration: apiIntegration });
    httpApi.addRoutes({
      path: '/webhooks/openphone',
      methods: [HttpMethod.POST],
      integration: integrate('WebhookIntegration', webhook),
    });
    httpApi.addRoutes({
      path: '/webhooks/twilio/status',
      methods: [HttpMethod.POST],
      integration: integrate('TwilioIntegration', twilioStatus),
    });
    return httpApi;
  }
}
