import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { DomainName, HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IFunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { contentSecurityPolicy } from './content-security-policy';

export interface WebDistributionProps {
  api: HttpApi;
  /** The HTTP API's custom domain when the deployment has one (its execute-api endpoint is then off). */
  apiDomain?: DomainName;
  /** The response-streaming chat function's URL (AWS_IAM; CloudFront signs with origin access control). */
  chatUrl: IFunctionUrl;
  domainName?: string;
  certificate?: ICertificate;
  clerkPublishableKey?: string;
  /** The live channel's WebSocket origin (`wss://…`), allowed in the PWA's connect-src. */
  liveSocketOrigin?: string;
  /** The built PWA (web/dist); absent → no deployment of files (infra tests without a web build). */
  webDist?: string;
  webAclArn?: string;
}

/**
 * The one public entry: the PWA from a private bucket, /api, /webhooks and /health to the HTTP API, /api/chat
 * to the streaming function URL. Security headers on every response; app routes rewritten at the edge on the
 * PWA behaviour only, so an API 404 stays a JSON 404.
 */
export class WebDistribution extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: WebDistributionProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Site', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    const headers = securityHeaders(this, props.clerkPublishableKey, props.liveSocketOrigin);
    const spaRoutes = new EdgeFunction(this, 'SpaRoutes', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Serves index.html for PWA routes; JSON 404 for unknown API paths',
      code: FunctionCode.fromInline(readFileSync(join(import.meta.dirname, 'spa-routes.js'), 'utf8')),
    });
    const apiOrigin = props.apiDomain
      ? // The API's custom domain answers only for its own host name: forward the viewer's Host (DOMAIN_NAME).
        new HttpOrigin(props.apiDomain.regionalDomainName)
      : new HttpOrigin(
          `${props.api.apiId}.execute-api.${props.api.stack.region}.${props.api.stack.urlSuffix}`,
        );
    const apiBehavior: BehaviorOptions = {
      origin: apiOrigin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: props.apiDomain
        ? OriginRequestPolicy.ALL_VIEWER
        : OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      responseHeadersPolicy: headers,
    };
    this.distribution = new Distribution(this, 'Cdn', {
      defaultRootObject: 'index.html',
      ...(props.domainName && props.certificate
        ? { domainNames: [props.domainName], certificate: props.certificate }
        : {}),
      webAclId: props.webAclArn,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: spaRoutes, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/chat': {
          ...apiBehavior,
          // SigV4-signed by CloudFront (OAC); the PWA sends x-amz-content-sha256 for the POST body.
          origin: FunctionUrlOrigin.withOriginAccessControl(props.chatUrl, {
            readTimeout: Duration.seconds(60),
          }),
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
        '/api/*': apiBehavior,
        '/webhooks/*': apiBehavior,
        '/health': apiBehavior,
      },
    });
    if (props.webDist) {
      new BucketDeployment(this, 'DeploySite', {
        // Source maps stay on the build machine: they would publish the PWA's source.
        sources: [Source.asset(props.webDist, { exclude: ['**/*.map'] })],
        destinationBucket: this.bucket,
        distribution: this.distribution,
      });
    }
  }
}

function securityHeaders(
  scope: Construct,
  clerkPublishableKey: string | undefined,
  liveSocketOrigin: string | undefined,
) {
  return new ResponseHeadersPolicy(scope, 'SecurityHeaders', {
    comment: 'Switchboard: CSP (self + Clerk), HSTS, nosniff, no framing, strict referrer',
    securityHeadersBehavior: {
      contentSecurityPolicy: {
        contentSecurityPolicy: contentSecurityPolicy(clerkPublishableKey, liveSocketOrigin),
        override: true,
      },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.days(365),
        includeSubdomains: true,
        override: true,
      },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: {
        referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
        override: true,
      },
    },
  });
}
