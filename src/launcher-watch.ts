/**
 * The service ends with the process that launched it. Killing `npm start` outright (kill -9, a
 * terminal closed, an IDE's stop) ends npm alone: nothing would tell the service, which would go
 * on holding its ports, its PostgreSQL and its anvil. Its parent changing is how it learns.
 */
const CHECK_INTERVAL_MS = 500;

/** Calls `onGone` once, when this process's parent has exited; returns how to stop watching. */
export function watchLauncher(onGone: () => void): () => void {
  const launcher = process.ppid;
  // Already adopted (or the first process of a container): there is no launcher to outlive.
  if (launcher <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    onGone();
  }, CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
