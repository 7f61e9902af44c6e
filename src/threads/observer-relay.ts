/**
 * Observers across threads: the metrics live on the service thread, the work they count may run
 * on another. There an observer posts each call; the service thread replays it on the real one.
 */

/** One call of an observer's method, as it crosses. */
export interface ObserverCall {
  observer: string;
  method: string;
  args: unknown[];
}

/** Observers whose methods return nothing: what is told, never what is answered. */
type Telling<T> = { [K in keyof T]: (...args: never[]) => void };

/** An observer (called `observer` across) whose every call of `methods` is posted instead. */
export function relayedObserver<T extends Telling<T>>(
  observer: string,
  methods: readonly (keyof T & string)[],
  post: (call: ObserverCall) => void,
): T {
  return Object.fromEntries(
    methods.map((method) => [method, (...args: unknown[]) => post({ observer, method, args })]),
  ) as unknown as T;
}

/** Replays `call` on the observer of its name; a call of none is dropped. */
export function replayObserverCall(
  observers: Readonly<Record<string, object>>,
  call: ObserverCall,
): void {
  const observer = observers[call.observer] as
    Record<string, ((...args: unknown[]) => void) | undefined> | undefined;
  observer?.[call.method]?.(...call.args);
}
