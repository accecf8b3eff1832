import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { getWorkerDeps } from '../shared/src/composition/worker';
import { consumeRecord } from '../shared/src/use-cases/consume-record';

const processor = new BatchProcessor(EventType.SQS);

/** SQS → one use case per record; failed records are reported back so only they are redelivered. */
export const handler = async (event: SQSEvent) => {
  const deps = await getWorkerDeps();
  const recordHandler = (record: SQSRecord) =>
    consumeRecord(deps, {
      body: record.body,
      messageId: record.messageId,
      receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 0),
    });
  return processPartialResponse(event, recordHandler, processor, { throwOnFullBatchFailure: false });
};
