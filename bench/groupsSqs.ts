/**
 * The SQS FIFO phase of bench/groups.ts: SendMessageBatch of 10 (over the groups, with dedup
 * ids), then ReceiveMessage of 10 + DeleteMessageBatch, through the real @aws-sdk/client-sqs
 * on loops spread over the pods; a standard queue (no groups) in the same run for comparison.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Proc } from './procs';
import { pool } from './stats';

/** messages per queue, groups of the FIFO queue, concurrent loops */
export interface SqsSettings {
  fifo: number;
  groups: number;
  consumers: number;
}

export interface SqsFifoResult {
  messages: number;
  groups: number;
  send_per_s: number;
  receive_delete_per_s: number;
  /** a standard queue (no groups) in the same run, for comparison */
  standard_send_per_s: number;
  standard_receive_delete_per_s: number;
  /** FIFO receives that found every group locked or empty */
  empty_receives: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `count` messages in batches of 10 over the clients, then receives (10) and deletes them. */
async function sqsRates(clients: SQSClient[], name: string, count: number, s: SqsSettings) {
  const fifo = name.endsWith('.fifo');
  const { QueueUrl } = await clients[0].send(
    new CreateQueueCommand({ QueueName: name, Attributes: fifo ? { FifoQueue: 'true' } : {} }),
  );
  const batches = Math.ceil(count / 10);
  let next = 0;
  let started = Date.now();
  await pool(s.consumers, async (loop) => {
    const b = next++;
    if (b >= batches) return false;
    await clients[loop % clients.length].send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: Array.from({ length: 10 }, (_, k) => ({
          Id: String(k),
          MessageBody: `${b}-${k}`,
          ...(fifo
            ? { MessageGroupId: `g${(b * 10 + k) % s.groups}`, MessageDeduplicationId: `${b}-${k}` }
            : {}),
        })),
      }),
    );
    return true;
  });
  const send = (batches * 10) / ((Date.now() - started) / 1000);
  let received = 0;
  let idle = 0;
  started = Date.now();
  await pool(s.consumers, async (loop) => {
    if (received >= batches * 10 || idle > 200) return false;
    const sqs = clients[loop % clients.length];
    const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    const messages = got.Messages ?? [];
    if (messages.length === 0) {
      idle++;
      await sleep(5);
      return true;
    }
    received += messages.length;
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: messages.map((m, k) => ({ Id: String(k), ReceiptHandle: m.ReceiptHandle })),
      }),
    );
    return true;
  });
  if (received < batches * 10) throw new Error(`${name}: received ${received} of ${batches * 10}`);
  return { send, receiveDelete: received / ((Date.now() - started) / 1000), empty: idle };
}

/** A FIFO queue's batch rates, and a standard queue's in the same run for comparison. */
export async function sqsFifo(
  procs: Proc[],
  keys: { accessKeyId: string; secretAccessKey: string },
  s: SqsSettings,
): Promise<SqsFifoResult> {
  const clients = procs.map(
    (p) =>
      new SQSClient({
        endpoint: `http://127.0.0.1:${p.port}/sqs`,
        region: 'us-east-1',
        credentials: keys,
        maxAttempts: 1,
      }),
  );
  try {
    const standard = await sqsRates(clients, 'bench-standard', s.fifo, s);
    const fifo = await sqsRates(clients, 'bench.fifo', s.fifo, s);
    return {
      messages: s.fifo,
      groups: s.groups,
      send_per_s: Math.round(fifo.send),
      receive_delete_per_s: Math.round(fifo.receiveDelete),
      standard_send_per_s: Math.round(standard.send),
      standard_receive_delete_per_s: Math.round(standard.receiveDelete),
      empty_receives: fifo.empty,
    };
  } finally {
    for (const c of clients) c.destroy();
  }
}
