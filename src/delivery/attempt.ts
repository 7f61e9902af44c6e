/**
 * One delivery attempt: a row's notice or verification request sent through its channel, within
 * its deadline. Each attempt has its own abort controller, aborted at the deadline or when the
 * worker gives up waiting for it on stopping (cheaper than AbortSignal.any on a signal that lives
 * as long as the worker); a channel that cannot take a signal (SMTP) is abandoned at the
 * deadline all the same.
 */
import type { ChallengeRequest } from '../subscriptions/destination-verification.js';
import { DeliveryError, type Channel } from './channel.js';
import type { Channels } from './configured-channels.js';
import type { ClaimedDelivery } from './outbox.js';

/** The worker stopped during the attempt: its row goes back, no attempt counted. */
export class Stopped extends Error {}

export interface Attempts {
  /** Sends the row's message; throws why not (`Stopped`, a `DeliveryError`, or the cause). */
  attempt(row: ClaimedDelivery): Promise<void>;
  /** Aborts every attempt in flight: each throws `Stopped`. */
  abortAll(): void;
}

export function createAttempts(input: {
  channels: Channels;
  timeoutMs: number;
  /** Records that a webhook answered its challenge, before its row counts as delivered. */
  verified(request: ChallengeRequest): Promise<void>;
}): Attempts {
  const { channels, timeoutMs } = input;
  const aborting = new Set<() => void>();
  let abortedAll = false;

  const attempt = async (row: ClaimedDelivery): Promise<void> => {
    const channel = channels[row.channel.kind] as Channel | { disabled: string } | undefined;
    if (!channel) throw new DeliveryError('unknown channel kind', { permanent: true });
    if ('disabled' in channel) throw new DeliveryError(channel.disabled, { permanent: true });
    const controller = new AbortController();
    let abort = (_reason: 'deadline' | 'stopped') => {};
    const aborted = new Promise<never>((_, reject) => {
      abort = (reason) => {
        controller.abort();
        reject(reason === 'stopped' ? new Stopped() : new Error('deadline'));
      };
    });
    aborted.catch(() => undefined);
    const timer = setTimeout(() => abort('deadline'), timeoutMs);
    const stop = () => abort('stopped');
    aborting.add(stop);
    const send = async () => {
      const { message } = row;
      if (message.kind === 'notice') {
        return channel.deliver(message.notice, row.channel, controller.signal);
      }
      if (!channel.verify) {
        throw new DeliveryError(`no verification is sent by ${row.channel.kind}`, {
          permanent: true,
        });
      }
      await channel.verify(message.request, row.channel, controller.signal);
      if (message.request.method === 'webhookChallenge') await input.verified(message.request);
    };
    try {
      await Promise.race([send(), aborted]);
    } catch (error) {
      if (abortedAll) throw new Stopped();
      if (controller.signal.aborted && !(error instanceof DeliveryError)) {
        throw new DeliveryError(`no answer within ${timeoutMs} ms`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
      aborting.delete(stop);
    }
  };

  return {
    attempt,
    abortAll() {
      abortedAll = true;
      for (const abort of aborting) abort();
    },
  };
}
