import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local AWS Secrets Manager and SSM Parameter Store for the few calls Switchboard makes: the AWS JSON 1.1
 * protocol (POST /, `X-Amz-Target: secretsmanager.<Op>` or `AmazonSSM.<Op>`, errors as `{ __type, message }`),
 * so the real SDK clients (and Powertools Parameters over them) talk to it through AWS_ENDPOINT_URL_*.
 * Like the real services it refuses an unknown secret or parameter and a PutSecretValue without a value.
 * `failNext(n)` answers the next n calls with a 500 InternalServiceError, as a service hiccup would.
 */
export interface AwsSettingsEmulator {
  url: string;
  calls: Array<{ target: string; body: Record<string, unknown> }>;
  createSecret(name: string, value?: string): string;
  secretValue(idOrArn: string): string | undefined;
  putParameter(name: string, value: string): void;
  failNext(n: number): void;
  stop(): Promise<void>;
}

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';

type Handler = (body: Record<string, unknown>) => [number, unknown];

export async function startAwsSettingsEmulator(port = 0): Promise<AwsSettingsEmulator> {
  const secrets = new Map<string, { arn: string; name: string; value?: string; version?: string }>();
  const parameters = new Map<string, { value: string; version: number }>();
  const calls: AwsSettingsEmulator['calls'] = [];
  let failures = 0;
  const find = (id: unknown) => [...secrets.values()].find((s) => s.arn === id || s.name === id);
  const notFound = (what: string): [number, unknown] => [
    400,
    {
      __type: 'ResourceNotFoundException',
      message: `Secrets Manager can't find the specified secret: ${what}`,
    },
  ];
  const createSecret = (name: string, value?: string) => {
    const arn = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-${randomUUID().slice(0, 6)}`;
    secrets.set(name, { arn, name, value, version: value === undefined ? undefined : randomUUID() });
    return arn;
  };
  const ops: Record<string, Handler> = {
    'secretsmanager.GetSecretValue': (b) => {
      const s = find(b.SecretId);
      if (!s || s.value === undefined) return notFound(String(b.SecretId));
      return [
        200,
        {
          ARN: s.arn,
          Name: s.name,
          SecretString: s.value,
          VersionId: s.version,
          VersionStages: ['AWSCURRENT'],
        },
      ];
    },
    'secretsmanager.DescribeSecret': (b) => {
      const s = find(b.SecretId);
      return s ? [200, { ARN: s.arn, Name: s.name }] : notFound(String(b.SecretId));
    },
    'secretsmanager.PutSecretValue': (b) => {
      const s = find(b.SecretId);
      if (!s) return notFound(String(b.SecretId));
      if (typeof b.SecretString !== 'string') {
        return [
          400,
          {
            __type: 'InvalidParameterException',
            message: 'You must provide either SecretString or SecretBinary.',
          },
        ];
      }
      s.value = b.SecretString;
      s.version = randomUUID();
      return [200, { ARN: s.arn, Name: s.name, VersionId: s.version, VersionStages: ['AWSCURRENT'] }];
    },
    'AmazonSSM.GetParameter': (b) => {
      const p = parameters.get(String(b.Name));
      if (!p) return [400, { __type: 'ParameterNotFound', message: '' }];
      const arn = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter${String(b.Name)}`;
      return [
        200,
        { Parameter: { Name: b.Name, Type: 'String', Value: p.value, Version: p.version, ARN: arn } },
      ];
    },
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    let body: Record<string, unknown> = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    } catch {
      return send(res, 400, { __type: 'SerializationException', message: 'body is not JSON' });
    }
    calls.push({ target, body });
    if (failures > 0) {
      failures--;
      return send(res, 500, { __type: 'InternalServiceError', message: 'injected failure' });
    }
    const op = ops[target];
    if (!op) return send(res, 400, { __type: 'UnknownOperationException', message: target });
    const [status, out] = op(body);
    send(res, status, out);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    createSecret,
    secretValue: (id) => find(id)?.value,
    putParameter: (name, value) => {
      parameters.set(name, { value, version: (parameters.get(name)?.version ?? 0) + 1 });
    },
    failNext: (n) => {
      failures = n;
    },
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  res.end(JSON.stringify(body));
}
