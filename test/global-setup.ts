import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../scripts/local/dynamodb';

/**
 * One DynamoDB Local for the whole test run (the JVM takes seconds to start). Each test file creates its
 * own uniquely named table, so files stay isolated while sharing the process.
 */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  // Where the browser tests' one PWA build of this run goes (test/pwa-build.ts builds it on first use).
  const pwaDist = join(tmpdir(), `switchboard-pwa-${process.pid}-${Date.now()}`);
  project.provide('pwaDist', pwaDist);
  return async () => {
    await dynamo.stop();
    await rm(pwaDist, { recursive: true, force: true });
    await rm(`${pwaDist}.lock`, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    pwaDist: string;
  }
}
