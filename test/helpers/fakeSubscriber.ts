/** A stand-in for the pod's subscriber connection in unit tests: records (s)subscribe calls, emits smessage on demand. */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { EventHub } from '../../src/store/events';
import type { RedisClient } from '../../src/store/redis';

export class FakeSubscriber extends EventEmitter {
  calls: string[] = [];
  failNext: Error | null = null;
  async ssubscribe(...keys: string[]): Promise<number> {
    this.calls.push(`ssubscribe ${keys.join(' ')}`);
    await Promise.resolve();
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    return 1;
  }
  async sunsubscribe(key: string): Promise<number> {
    this.calls.push(`sunsubscribe ${key}`);
    return 0;
  }
}

export function fakeHub() {
  const fake = new FakeSubscriber();
  const events = new EventHub(fake as unknown as RedisClient, pino({ level: 'silent' }));
  return { fake, events };
}
