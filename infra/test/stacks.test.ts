import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, test } from 'vitest';
import { pwaContentSecurityPolicy } from '../../shared/src/domain/security-headers';
import { buildApp } from '../lib/app';
import { parseDeployment } from '../lib/deployment';

/**
 * The synthesized CloudFormation, checked with aws-cdk-lib/assertions, and cdk-nag's AwsSolutions pack with
 * zero unacknowledged findings (each acknowledgement carries its reason in infra/lib/nag-acknowledgements.ts).
 * Synthesis bundles every function with the local esbuild (no Docker), as `npx cdk synth` does.
 */
let stateful: Template;
let stateless: Template;
let built: ReturnType<typeof buildApp>;

let webDist: string;

beforeAll(() => {
  // A stand-in PWA build with a source map beside the bundle: the map must not reach the bucket.
  webDist = mkdtempSync(join(tmpdir(), 'sb-web-'));
  mkdirSync(join(webDist, 'assets'));
  writeFileSync(join(webDist, 'index.html'), '<!doctype html><title>Switchboard</title>');
  writeFileSync(
    join(webDist, 'assets', 'index-abc.js'),
    'console.log(1)\n//# sourceMappingURL=index-abc.js.map',
  );
  writeFileSync(join(webDist, 'assets', 'index-abc.js.map'), '{"version":3}');
  built = buildApp({ settings: { TEAM_TIMEZONE: 'America/New_York' }, webDist });
  built.app.synth();
  stateful = Template.fromStack(built.stateful);
  stateless = Template.fromStack(built.stateless);
}, 240_000);

/** The PWA's CSP as text (CloudFormation joins the live socket's host into it). */
function cspOf(template: Template): string {
  const policy = Object.values(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0];
  const csp = policy?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy
    .ContentSecurityPolicy as string | { 'Fn::Join': [string, unknown[]] };
  if (typeof csp === 'string') return csp;
  return csp['Fn::Join'][1].map((p) => (typeof p === 'string' ? p : '<token>')).join(csp['Fn::Join'][0]);
}

describe('stateful stack', () => {
  test('one on-demand table with TTL, PITR and the GSI', () => {
    stateful.resourceCountIs('AWS::DynamoDB::Table', 1);
    stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: 'gsi1' })],
    });
  });

  test('the events queue dead-letters after 5 receives and its visibility is 6× the worker timeout', () => {
    stateful.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 720,
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
    });
  });

  test('the data stays when the stack is deleted', () => {
    stateful.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    stateful.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
  });
});

describe('stateless stack', () => {
  test('every function runs Node 24 on arm64 with an explicit log retention', () => {
    const fns = stateless.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { STAGE: 'aws' } } },
    });
    // api, api-stream, two webhooks, email poll, worker, pdf text, live socket, alarm push.
    expect(Object.keys(fns).length).toBe(9);
    for (const f of Object.values(fns)) {
      expect(f.Properties.Runtime).toBe('nodejs24.x');
      expect(f.Properties.Architectures).toEqual(['arm64']);
      expect(f.Properties.LoggingConfig?.LogGroup).toBeDefined();
    }
    stateless.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  test('/api/chat is served by a response-streaming function URL behind CloudFront', () => {
    stateless.hasResourceProperties('AWS::Lambda::Url', { InvokeMode: 'RESPONSE_STREAM' });
    stateless.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        CacheBehaviors: Match.arrayWith([Match.objectLike({ PathPattern: '/api/chat' })]),
      }),
    });
  });

  test('the worker consumes the queue with partial batch failures', () => {
    stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  test('HTTP routes for the API, health and both webhooks', () => {
    for (const key of [
      'GET /health',
      'ANY /api/{proxy+}',
      'POST /webhooks/openphone',
      'POST /webhooks/twilio/status',
    ]) {
      stateless.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    }
  });

  test('API integrations use payload 2.0, so a base64 body (a photo from /api/media/:id) is decoded', () => {
    // HTTP APIs have no binaryMediaTypes (that is REST APIs): with payload 2.0 API Gateway decodes a Lambda
    // response whose isBase64Encoded is true, which hono's adapter sets for image types.
    const http = Object.keys(
      stateless.findResources('AWS::ApiGatewayV2::Api', { Properties: { ProtocolType: 'HTTP' } }),
    );
    const integrations = Object.values(stateless.findResources('AWS::ApiGatewayV2::Integration')).filter(
      (i) => http.includes(i.Properties.ApiId?.Ref),
    );
    expect(integrations.length).toBeGreaterThanOrEqual(3);
    for (const i of integrations) expect(i.Properties.PayloadFormatVersion).toBe('2.0');
  });

  test('email polls on schedules: general every 15 minutes, leads every 5', () => {
    stateless.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
    stateless.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
  });

  test('alarms on the DLQ and on function errors; the PWA behind CloudFront', () => {
    stateless.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    expect(Object.keys(stateless.findResources('AWS::CloudWatch::Alarm')).length).toBeGreaterThanOrEqual(6);
    stateless.resourceCountIs('AWS::CloudFront::Distribution', 1);
  });

  test('timers: a schedule group, a role Scheduler assumes to send to the queue, the worker may create/delete schedules', () => {
    stateless.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    stateless.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' }, Action: 'sts:AssumeRole' }),
        ]),
      }),
    });
    const policies = JSON.stringify(stateless.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('scheduler:CreateSchedule');
    expect(policies).toContain('iam:PassRole');
    const worker = Object.values(
      stateless.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { EVENTS_MAX_RECEIVE_COUNT: '5' } } },
      }),
    );
    expect(worker.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(worker[0]?.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'EVENTS_QUEUE_ARN']),
    );
  });

  test('no secret value is in the template: functions get only the secret ARN', () => {
    const json = JSON.stringify(stateless.toJSON());
    expect(json).toContain('SECRETS_ARN');
    expect(json).not.toMatch(/ANTHROPIC_API_KEY|VAPID_PRIVATE_KEY|TWILIO_AUTH_TOKEN/);
  });
});

test('cdk-nag AwsSolutions: no unacknowledged findings', () => {
  for (const stack of [built.stateful, built.stateless]) {
    const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
    expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 160)}`)).toEqual([]);
  }
});

describe('the edge (CloudFront) of a deployment without a custom domain', () => {
  const distribution = () =>
    Object.values(stateless.findResources('AWS::CloudFront::Distribution'))[0]?.Properties.DistributionConfig;

  test('stacks are named by stage', () => {
    expect(built.stateful.stackName).toBe('Switchboard-dev-Stateful');
    expect(built.stateless.stackName).toBe('Switchboard-dev-Stateless');
  });

  test('the PWA behaviour alone runs the app-route function; no distribution-wide 404 → index.html', () => {
    stateless.resourceCountIs('AWS::CloudFront::Function', 1);
    stateless.hasResourceProperties('AWS::CloudFront::Function', {
      FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      FunctionCode: Match.stringLikeRegexp("request.uri = '/index.html'"),
    });
    const config = distribution();
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(config.DefaultCacheBehavior.FunctionAssociations[0].EventType).toBe('viewer-request');
    for (const b of config.CacheBehaviors) expect(b.FunctionAssociations).toBeUndefined();
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  test('security headers on every behaviour: CSP with frame-ancestors, HSTS, nosniff, referrer policy', () => {
    stateless.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: Match.objectLike({ Override: true }),
          StrictTransportSecurity: Match.objectLike({
            AccessControlMaxAgeSec: 31536000,
            IncludeSubdomains: true,
          }),
          ContentTypeOptions: { Override: true },
          ReferrerPolicy: { ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
        }),
      }),
    });
    // The CSP joins in the live socket's host (a token until deploy), so it is checked as text.
    expect(cspOf(stateless)).toContain("frame-ancestors 'none'");
    // Message photos are shown as blob URLs of the token-fetched /api/media/:id (issue 20).
    expect(cspOf(stateless)).toContain("img-src 'self' data: blob: https://img.clerk.com");
    const config = distribution();
    for (const b of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) {
      expect(b.ResponseHeadersPolicyId).toBeDefined();
    }
  });

  test('the chat function URL takes only SigV4-signed calls, and CloudFront signs them (OAC)', () => {
    stateless.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'AWS_IAM',
      InvokeMode: 'RESPONSE_STREAM',
    });
    stateless.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 'lambda',
        SigningBehavior: 'always',
        SigningProtocol: 'sigv4',
      }),
    });
    // Only the CloudFront service, for this distribution, may invoke the URL.
    stateless.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      Principal: 'cloudfront.amazonaws.com',
      SourceArn: Match.anyValue(),
    });
    const json = JSON.stringify(stateless.toJSON());
    expect(json).not.toContain('"AuthType":"NONE"');
  });

  test('no CORS on the HTTP API: the PWA and API share the distribution origin', () => {
    const apis = Object.values(
      stateless.findResources('AWS::ApiGatewayV2::Api', { Properties: { ProtocolType: 'HTTP' } }),
    );
    expect(apis).toHaveLength(1);
    expect(apis[0]?.Properties.CorsConfiguration).toBeUndefined();
  });

  test('PUBLIC_BASE_URL: the distribution domain in an SSM parameter the functions may read', () => {
    stateless.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/switchboard/dev/public-base-url',
      Value: { 'Fn::Join': ['', ['https://', Match.anyValue()]] },
    });
    const fns = stateless.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { STAGE: 'aws' } } },
    });
    for (const f of Object.values(fns)) {
      expect(f.Properties.Environment.Variables.PUBLIC_BASE_URL_PARAMETER).toBe(
        '/switchboard/dev/public-base-url',
      );
      expect(f.Properties.Environment.Variables.PUBLIC_BASE_URL).toBeUndefined();
    }
    stateless.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'ssm:GetParameter', Resource: Match.anyValue() }),
        ]),
      },
    });
  });

  test('the published PWA has no source maps', () => {
    const deploy = stateless.findResources('Custom::CDKBucketDeployment');
    expect(Object.keys(deploy)).toHaveLength(1);
    const staged = readdirSync(built.app.outdir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name.startsWith('asset.'))
      .map((e) => e.name);
    const withIndex = staged.filter((dir) => readdirSync(join(built.app.outdir, dir)).includes('index.html'));
    expect(withIndex).toHaveLength(1);
    const files = readdirSync(join(built.app.outdir, withIndex[0] as string), { recursive: true }).map(
      String,
    );
    expect(files).toContain(join('assets', 'index-abc.js'));
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  test('limits: reserved concurrency on HTTP-facing functions, maxConcurrency on the worker, API throttling', () => {
    const reserved = Object.values(stateless.findResources('AWS::Lambda::Function'))
      .map((f) => f.Properties.ReservedConcurrentExecutions)
      .filter((n) => n !== undefined);
    // API, live socket 10; chat, webhooks 5; the alarm push 1 (one alarm at a time is plenty).
    expect(reserved.sort()).toEqual([1, 10, 10, 5, 5, 5]);
    stateless.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 },
    });
  });

  test('live channel: a WebSocket API whose three routes run the live-socket function; publishers may post to connections', () => {
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    const routes = Object.values(stateless.findResources('AWS::ApiGatewayV2::Route')).map(
      (r) => r.Properties.RouteKey,
    );
    expect(routes).toEqual(expect.arrayContaining(['$connect', '$disconnect', '$default']));
    stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'live',
      DefaultRouteSettings: { ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 },
    });
    const fns = stateless.findResources('AWS::Lambda::Function');
    const envOf = (prefix: string) =>
      Object.entries(fns).find(([id]) => id.startsWith(`${prefix}Fn`))?.[1].Properties.Environment.Variables;
    for (const id of ['Api', 'ApiStream', 'AgentWorker', 'LiveSocket']) {
      expect(envOf(id)?.LIVE_ENDPOINT, id).toBeDefined();
      expect(envOf(id)?.LIVE_SOCKET_URL, id).toBeDefined();
      const manage = Object.entries(stateless.findResources('AWS::IAM::Policy'))
        .filter(([pid]) => pid.startsWith(`${id}FnServiceRoleDefaultPolicy`))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>)
        .some((s) => [s.Action].flat().includes('execute-api:ManageConnections'));
      expect(manage, id).toBe(true);
    }
    // The PWA's CSP lets it open the socket on the WebSocket API's own host.
    expect(cspOf(stateless)).toMatch(/connect-src 'self' [^;]* wss:\/\/<token>\.execute-api\./);
  });

  test('no WAF unless asked (dev default)', () => {
    expect(built.waf).toBeUndefined();
  });
});

describe('prod with a custom domain', () => {
  let prod: ReturnType<typeof buildApp>;
  let edge: Template;
  let t: Template;
  beforeAll(() => {
    prod = buildApp({
      deployment: parseDeployment({
        STAGE: 'prod',
        DOMAIN_NAME: 'app.oakproperties.example',
        CERTIFICATE_ARN: 'arn:aws:acm:us-east-1:111111111111:certificate/cf',
        API_CERTIFICATE_ARN: 'arn:aws:acm:eu-west-1:111111111111:certificate/api',
        API_CONCURRENCY: '3',
      }),
      settings: {
        CLERK_PUBLISHABLE_KEY: `pk_live_${Buffer.from('clerk.oakproperties.example$').toString('base64')}`,
      },
      env: { account: '111111111111', region: 'eu-west-1' },
      webDist,
      bundle: false,
    });
    prod.app.synth();
    t = Template.fromStack(prod.stateless);
    edge = Template.fromStack(prod.waf as NonNullable<typeof prod.waf>);
  }, 120_000);

  test('stacks named for prod; the API answers only on its custom domain (execute-api endpoint off)', () => {
    expect(prod.stateless.stackName).toBe('Switchboard-prod-Stateless');
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
    t.hasResourceProperties('AWS::ApiGatewayV2::DomainName', { DomainName: 'app.oakproperties.example' });
    t.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ Aliases: ['app.oakproperties.example'] }),
    });
  });

  test('PUBLIC_BASE_URL is the custom domain, set directly; no SSM parameter', () => {
    t.resourceCountIs('AWS::SSM::Parameter', 0);
    const fns = t.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { STAGE: 'aws' } } },
    });
    for (const f of Object.values(fns)) {
      expect(f.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://app.oakproperties.example');
    }
  });

  test("CSP names production Clerk's Frontend API from the publishable key", () => {
    expect(cspOf(t)).toContain(
      "script-src 'self' https://clerk.oakproperties.example https://challenges.cloudflare.com",
    );
  });

  test('the template sends the CSP the local PWA server sends (issue 12: one source), plus the live socket', () => {
    const local = pwaContentSecurityPolicy({
      clerkPublishableKey: `pk_live_${Buffer.from('clerk.oakproperties.example$').toString('base64')}`,
      liveSocketOrigin: 'LIVE',
    });
    expect(local).toContain('https://*.protect.clerk.com');
    expect(cspOf(t).replace(/wss:\/\/\S*?(?=;)/, 'LIVE')).toBe(local);
  });

  test('WAF on by default for prod: CLOUDFRONT scope in us-east-1, common rules + a webhook rate rule', () => {
    expect(prod.waf?.region).toBe('us-east-1');
    edge.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: {
            ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' },
          },
        }),
        Match.objectLike({
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: Match.objectLike({
              Limit: 300,
              AggregateKeyType: 'IP',
              ScopeDownStatement: Match.objectLike({
                ByteMatchStatement: Match.objectLike({
                  SearchString: '/webhooks/',
                  PositionalConstraint: 'STARTS_WITH',
                }),
              }),
            }),
          },
        }),
      ]),
    });
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ WebACLId: Match.anyValue() }),
    });
  });

  test('configured limits reach the template', () => {
    const reserved = Object.values(t.findResources('AWS::Lambda::Function'))
      .map((f) => f.Properties.ReservedConcurrentExecutions)
      .filter((n) => n !== undefined);
    expect(reserved).toContain(3);
  });

  test('cdk-nag: no unacknowledged findings in the prod shape either', () => {
    for (const stack of [prod.stateful, prod.stateless, prod.waf]) {
      if (!stack) continue;
      const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
      expect(errors.map((e) => `${e.id}: ${String(e.entry.data).slice(0, 160)}`)).toEqual([]);
    }
  });
});

describe('deployment settings fail synth with a clear message', () => {
  test('PUBLIC_BASE_URL cannot be set by hand for a deploy', () => {
    expect(() => parseDeployment({ PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })).toThrow(
      /PUBLIC_BASE_URL is taken from the deployment itself: set DOMAIN_NAME/,
    );
  });

  test('a custom domain without its certificate, or a certificate without a domain', () => {
    expect(() => parseDeployment({ DOMAIN_NAME: 'app.example.com' })).toThrow(
      /CERTIFICATE_ARN: DOMAIN_NAME=app.example.com needs/,
    );
    expect(() => parseDeployment({ CERTIFICATE_ARN: 'arn:aws:acm:us-east-1:1:certificate/x' })).toThrow(
      /DOMAIN_NAME/,
    );
  });

  test('the API certificate must be in the stack region', () => {
    expect(() =>
      buildApp({
        deployment: parseDeployment({
          DOMAIN_NAME: 'app.example.com',
          CERTIFICATE_ARN: 'arn:aws:acm:us-east-1:111111111111:certificate/cf',
          WAF: 'false',
        }),
        env: { account: '111111111111', region: 'eu-west-1' },
        bundle: false,
      }),
    ).toThrow(/needs a certificate in eu-west-1, not us-east-1: set API_CERTIFICATE_ARN/);
  });

  test('WAF needs a concrete account and region (cross-region reference)', () => {
    expect(() => buildApp({ deployment: parseDeployment({ STAGE: 'prod' }), bundle: false })).toThrow(
      /WAF is on \(the default for prod\)/,
    );
  });

  test('a bad stage name', () => {
    expect(() => parseDeployment({ STAGE: 'Prod Stage' })).toThrow(/STAGE: a short lower-case name/);
  });
});

describe('least privilege', () => {
  const policiesOf = (fnId: string) =>
    Object.entries(stateless.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith(`${fnId}FnServiceRoleDefaultPolicy`))
      .flatMap(
        ([, p]) =>
          p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>,
      );
  const actions = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
  const secretGroupsOf = (fnId: string) =>
    [
      ...new Set(
        policiesOf(fnId)
          .filter((s) => actions(s).includes('secretsmanager:GetSecretValue'))
          .flatMap((s) =>
            [...JSON.stringify(s.Resource).matchAll(/Secrets(ingress|worker|api|paging|alarm)/g)].map(
              (m) => m[1],
            ),
          ),
      ),
    ].sort();

  test('one secret per group in the stateful stack, kept on delete', () => {
    for (const group of ['ingress', 'worker', 'api', 'paging', 'alarm']) {
      stateful.hasResource('AWS::SecretsManager::Secret', {
        Properties: Match.objectLike({ Name: `Switchboard-dev/${group}` }),
        DeletionPolicy: 'Retain',
      });
    }
  });

  test.each([
    ['OpenPhoneWebhook', ['ingress']],
    ['TwilioStatus', ['ingress']],
    ['Api', ['api']],
    // Chat turns run in it (issue 19), with the worker's keys.
    ['ApiStream', ['api', 'paging', 'worker']],
    ['EmailPoll', ['worker']],
    ['AgentWorker', ['paging', 'worker']],
    ['LiveSocket', ['api']],
    ['AlarmPush', ['alarm']],
    // Reads a Drive PDF with the token its caller passes (issue 16): no secrets.
    ['PdfText', []],
  ])('%s may read only its own group secrets', (fnId, groups) => {
    expect(secretGroupsOf(fnId)).toEqual(groups);
  });

  test('PDFs: only the worker and the streaming API may invoke the pdf-text function, which touches no table', () => {
    const fns = stateless.findResources('AWS::Lambda::Function');
    const pdfId = Object.keys(fns).find((id) => id.startsWith('PdfTextFn'));
    expect(pdfId).toBeDefined();
    const invokers = Object.entries(stateless.findResources('AWS::IAM::Policy'))
      .filter(([, p]) =>
        (
          p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>
        ).some(
          (st) =>
            actions(st).includes('lambda:InvokeFunction') &&
            JSON.stringify(st.Resource).includes(pdfId ?? '?'),
        ),
      )
      .map(([id]) => id.replace(/FnServiceRoleDefaultPolicy.*$/, ''))
      .sort();
    expect(invokers).toEqual(['AgentWorker', 'ApiStream']);
    for (const id of ['AgentWorker', 'ApiStream']) {
      const vars = Object.entries(fns).find(([k]) => k.startsWith(`${id}Fn`))?.[1].Properties.Environment
        .Variables;
      expect(vars?.PDF_TEXT_FUNCTION, id).toEqual({ Ref: pdfId });
    }
    expect(
      policiesOf('PdfText')
        .flatMap(actions)
        .filter((a) => a.startsWith('dynamodb:')),
    ).toEqual([]);
  });

  test('no function may Scan the table; the ingress functions cannot batch', () => {
    const all = Object.values(stateless.findResources('AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[] }>,
    );
    const dynamo = all.flatMap(actions).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).not.toContain('dynamodb:Scan');
    expect(dynamo.some((a) => a.includes('*'))).toBe(false);
    for (const fnId of ['OpenPhoneWebhook', 'TwilioStatus', 'EmailPoll']) {
      const fnActions = policiesOf(fnId).flatMap(actions);
      expect(fnActions).toContain('dynamodb:PutItem');
      expect(fnActions).not.toContain('dynamodb:BatchWriteItem');
    }
    // The alarm push lists the subscriptions partition and removes devices the push service says are gone.
    const alarmPush = policiesOf('AlarmPush')
      .flatMap(actions)
      .filter((a) => a.startsWith('dynamodb:'));
    expect([...new Set(alarmPush)].sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:Query']);
  });
});
