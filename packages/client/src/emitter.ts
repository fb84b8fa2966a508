/**
 * A small event emitter with Node's EventEmitter's names (on, once, off,
 * emit, listenerCount), so the library runs in browsers and Electron's
 * renderer without `node:events`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

export class Emitter {
  private readonly listeners = new Map<string, Listener[]>();

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...args) => {
      this.off(event, wrapped);
      listener(...args);
    };
    (wrapped as { original?: Listener }).original = listener;
    return this.on(event, wrapped);
  }

  off(event: string, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    const kept = list.filter(
      (l) => l !== listener && (l as { original?: Listener }).original !== listener,
    );
    if (kept.length > 0) this.listeners.set(event, kept);
    else this.listeners.delete(event);
    return this;
  }

  removeAllListeners(event?: string): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /** Calls every listener in order; returns whether there was one. */
  emit(event: string, ...args: unknown[]): boolean {
    const list = this.listeners.get(event);
    if (!list) return false;
    for (const listener of [...list]) listener(...args);
    return true;
  }
}
