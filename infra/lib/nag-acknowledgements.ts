import { type Stack, Token, Validations } from 'aws-cdk-lib';

/**
 * Every cdk-nag AwsSolutions finding we accept, each with the reason (cdk-nag 3 uses CDK's native
 * acknowledgements). Anything not listed here fails synth and the infra test, so a new finding has to be
 * fixed or argued for.
 */
export function acknowledgeNagFindings(stateful: Stack, stateless: Stack) {
  Validations.of(stateful).acknowledge(
    {
      id: 'AwsSolutions-SMG4',
      reason:
        'The group secrets hold third-party keys (OpenPhone, Google, ClickUp, Anthropic, Twilio, Clerk, VAPID, the memory git token) that are rotated at those vendors; no rotation Lambda can do it.',
    },
    {
      id: 'AwsSolutions-SQS3',
      reason: 'The events DLQ is itself a dead-letter queue; it has no DLQ of its own by design.',
    },
  );
  Validations.of(stateless).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: 'The AWS-managed minimal logging policy for Lambda; CDK custom-resource handlers use it too.',
    },
    {
      id: `AwsSolutions-IAM5[Resource::${stateful.stackName}:ExportsOutputFnGetAttTableCD117FA1ArnE2C8C204/index/*]`,
      reason:
        'grantReadWriteData covers the table and its own indexes (index/*): queries on gsi1 need it; nothing else is reachable.',
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords accept no resource ARN (AWS requires "*"); the CDK adds them for active tracing.',
    },
    ...['s3:Abort*', 's3:DeleteObject*', 's3:GetBucket*', 's3:GetObject*', 's3:List*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason:
        'The CDK BucketDeployment handler syncs the PWA build into the site bucket; its grants are scoped to that bucket and the asset bucket.',
    })),
    {
      id: 'AwsSolutions-IAM5[Resource::<WebSiteD504717C.Arn>/*]',
      reason: 'The deployment handler writes the PWA files (object keys) into the site bucket only.',
    },
    // The bootstrap asset bucket's ARN renders differently when the stack's account/region are known at synth.
    ...[
      'arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
      ...(Token.isUnresolved(stateless.region)
        ? []
        : [
            `arn:aws:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${stateless.region}/*`,
            `arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${stateless.account}-${stateless.region}/*`,
          ]),
    ].map((arn) => ({
      id: `AwsSolutions-IAM5[Resource::${arn}]`,
      reason: 'The deployment handler reads the PWA asset from the CDK bootstrap asset bucket.',
    })),
    // The live channel: post to / drop connections of the WebSocket API's one stage; ids exist only at run time.
    ...[
      '<AWS::Region>:<AWS::AccountId>',
      ...(Token.isUnresolved(stateless.region)
        ? []
        : [`${stateless.region}:${stateless.account}`, `${stateless.region}:<AWS::AccountId>`]),
    ].map((where) => ({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:${where}:<LiveSocketApi2A9757C5>/live/*/@connections/*]`,
      reason:
        'execute-api:ManageConnections on the live WebSocket API stage: the connection id (and POST/DELETE/GET) is only known at run time; no other API or stage is reachable.',
    })),
    {
      id: 'AwsSolutions-L1',
      reason:
        'Our functions pin Node 24 (NODEJS_24_X); the flagged runtimes belong to CDK-provided custom-resource handlers.',
    },
    {
      id: 'AwsSolutions-APIG1',
      reason:
        'HTTP API access logs are off for cost at this team size; function logs carry a correlation id per request.',
    },
    {
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization happens in the API function (Clerk session JWT + domain allow-list, SPEC §6.6); the webhooks are verified by their HMAC signatures.',
    },
    {
      id: 'AwsSolutions-S1',
      reason: 'The site bucket holds only the public PWA build; access logs add nothing.',
    },
    { id: 'AwsSolutions-CFR1', reason: 'The team is not geographically restricted.' },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        'WAF is a deployment choice (WAF=true, the default for prod, attaches the us-east-1 web ACL); a dev stage skips its fixed monthly cost, and the API still requires a session and the webhooks a signature.',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason: 'CloudFront access logs are off for cost; API requests are logged by the functions.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default CloudFront certificate is used until the team adds a custom domain (then TLSv1.2_2021 applies).',
    },
  );
}
