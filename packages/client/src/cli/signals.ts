/** Long-running commands (tail, forward) stop cleanly on the first SIGINT or SIGTERM. */

/** Resolves once stop() has finished after the first SIGINT or SIGTERM; onSignal runs first. */
export function untilSignal(stop: () => Promise<unknown>, onSignal?: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const handle = () => {
      process.off('SIGINT', handle);
      process.off('SIGTERM', handle);
      onSignal?.();
      stop().then(
        () => resolve(),
        () => resolve(),
      );
    };
    process.on('SIGINT', handle);
    process.on('SIGTERM', handle);
  });
}
