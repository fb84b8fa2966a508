/**
 * Commands that leave together. While a pod is busy, one turn of its event loop handles
 * several requests, and each sends its script call at once; the connection's socket is
 * corked at the first of them and uncorked when the turn's I/O is done (setImmediate), so
 * they leave in one writev and Redis reads them in one read: a system call and a wake-up
 * per command saved on both sides. Nothing else changes: ioredis sends each command the
 * moment it is called (its reply, error and command timeout are its own, counted from
 * then), only the bytes wait for the end of the turn, which a lone request reaches at
 * once. Over one Redis; a Cluster's node connections are left as they are.
 */
import Redis from 'ioredis';
import type { RedisClient } from './redis';

export type BeforeWrite = () => void;

export function batchWrites(redis: RedisClient): BeforeWrite {
  if (!(redis instanceof Redis)) return () => undefined;
  let corked: Redis['stream'] | null = null;
  const uncork = () => {
    const stream = corked;
    corked = null;
    stream?.uncork();
  };
  return () => {
    if (corked !== null || redis.status !== 'ready') return;
    const stream = redis.stream;
    if (!stream || !stream.writable) return;
    corked = stream;
    stream.cork();
    setImmediate(uncork);
  };
}
