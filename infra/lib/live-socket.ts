import { Stack } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { TsFunction } from './ts-function';

/** Stage name: part of both the socket URL and the management endpoint. */
export const LIVE_STAGE = 'live';

/**
 * The live channel on AWS (issue 19): an API Gateway WebSocket API whose `$connect`, `$disconnect` and
 * `$default` routes run the live-socket function (which verifies the session and keeps the connection in the
 * table). Nothing runs while apps sit idle: the worker and the API post changes through the Management API
 * (`LIVE_ENDPOINT`, the stage's callback URL), and the PWA opens `LIVE_SOCKET_URL` (the stage's wss URL),
 * which the API's public config hands it. Publishers and the socket function may manage connections.
 */
export function addLiveSocket(
  scope: Construct,
  opts: {
    socketFn: TsFunction;
    publishers: TsFunction[];
    throttle: { rateLimit: number; burstLimit: number };
  },
) {
  const integration = (name: string) => new WebSocketLambdaIntegration(name, opts.socketFn.fn);
  const api = new WebSocketApi(scope, 'LiveSocketApi', {
    description: 'Switchboard live updates to open apps',
    routeSelectionExpression: '$request.body.action',
    connectRouteOptions: { integration: integration('LiveConnect') },
    disconnectRouteOptions: { integration: integration('LiveDisconnect') },
    defaultRouteOptions: { integration: integration('LiveDefault') },
  });
  const stage = new WebSocketStage(scope, 'LiveSocketStage', {
    webSocketApi: api,
    stageName: LIVE_STAGE,
    autoDeploy: true,
    throttle: opts.throttle,
  });
  const env = { LIVE_ENDPOINT: stage.callbackUrl, LIVE_SOCKET_URL: stage.url };
  // Post to (and drop) this stage's connections only; a connection id is only known at run time.
  const manage = new PolicyStatement({
    actions: ['execute-api:ManageConnections'],
    resources: [
      Stack.of(scope).formatArn({
        service: 'execute-api',
        resource: api.apiId,
        resourceName: `${LIVE_STAGE}/*/@connections/*`,
      }),
    ],
  });
  for (const f of [opts.socketFn, ...opts.publishers]) {
    f.fn.addToRolePolicy(manage);
    for (const [k, v] of Object.entries(env)) f.fn.addEnvironment(k, v);
  }
  /** What the PWA's CSP must allow in connect-src (scheme + host, no path). */
  const origin = `wss://${api.apiId}.execute-api.${Stack.of(scope).region}.${Stack.of(scope).urlSuffix}`;
  return { api, stage, origin };
}
