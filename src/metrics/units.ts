/** What every family shares: the name prefix, and the buckets of durations. */
export const PREFIX = 'batchbook_';

/** Buckets of a request's or a wait's duration, in seconds. */
export const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
