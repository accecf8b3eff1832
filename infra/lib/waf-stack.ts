import { Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';

export interface WafStackProps extends StackProps {
  /** Requests per 5 minutes one IP may send to /webhooks/* before it is blocked. */
  webhookRateLimit: number;
}

const visibility = (metricName: string) => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

/**
 * The web ACL in front of CloudFront. WAF only accepts CLOUDFRONT-scoped ACLs in us-east-1, so this is its
 * own small stack there; the stateless stack takes its ARN (a cross-region reference).
 */
export class WafStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WafStackProps) {
    super(scope, id, props);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('switchboard-web-acl'),
      rules: [
        {
          name: 'aws-common-rules',
          priority: 0,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet' },
          },
          visibilityConfig: visibility('aws-common-rules'),
        },
        {
          // The public webhooks run up cost per call (signature check, a DynamoDB claim, an SQS send):
          // one address hammering them is blocked; the vendors' own delivery rates stay far below.
          name: 'webhook-rate-limit',
          priority: 1,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.webhookRateLimit,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                byteMatchStatement: {
                  fieldToMatch: { uriPath: {} },
                  positionalConstraint: 'STARTS_WITH',
                  searchString: '/webhooks/',
                  textTransformations: [{ priority: 0, type: 'NONE' }],
                },
              },
            },
          },
          visibilityConfig: visibility('webhook-rate-limit'),
        },
      ],
    });
  }
}
