import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../scripts/local/dynamodb';

/**
 * One DynamoDB Local for the whole test run (the JVM takes seconds to start). Each test file creates its
 * own uniquely named table, so files stay isolated while sharing the process.
 */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
